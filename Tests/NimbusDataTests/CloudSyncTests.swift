import Foundation
import Nimbus
import NimbusCloud
import NimbusData
import Observation
import Testing

/// A model as SwiftData apps write it for CloudKit: every attribute optional or with a
/// default, relationships optional.
@Model
final class Note {
    var title: String = ""
    var body: String?
    var kind: TripKind = TripKind.leisure
    var tags: [String] = []
    @Relationship(deleteRule: .cascade, inverse: \Attachment.note) var attachments: [Attachment]? = []

    init(title: String) { self.title = title }
}

@Model
final class Attachment {
    var name: String = ""
    var note: Note?

    init(name: String) { self.name = name }
}

@Suite("cloudKitDatabase mirrors through a Nimbus server")
struct CloudSyncTests {
    @Test("a NimbusData container and a CloudContainer of the same entities sync with each other both ways")
    func syncWithCloudContainer() async throws {
        let server = try await LoopbackServer.start(devices: 2)
        defer { Task { await server.stop() } }
        let identifier = "com.example.notes"
        let data = try ModelContainer(
            for: Schema([Note.self, Attachment.self]),
            configurations: [ModelConfiguration(url: temporaryStoreURL(), cloudKitDatabase: .private(identifier))],
            server: SyncServer(url: server.url, token: server.tokens[0]))
        let dataCloud = try #require(data.cloudContainer)
        dataCloud.automaticallySyncs = false

        // The other device: Nimbus's own API over the same entities (the model the schema makes).
        let model = try Schema([Note.self, Attachment.self]).makeManagedObjectModel()
        let cloud = CloudContainer(name: "other", managedObjectModel: model)
        cloud.automaticallySyncs = false
        var description = PersistentStoreDescription(url: temporaryStoreURL("Other.sqlite"))
        description.cloudContainerOptions = CloudContainerOptions(serverURL: server.url, containerIdentifier: identifier, token: server.tokens[1])
        cloud.persistentStoreDescriptions = [description]
        try await cloud.loadPersistentStores()

        let context = ModelContext(data)
        let note = Note(title: "Paris")
        note.kind = .business
        note.tags = ["food"]
        note.attachments?.append(Attachment(name: "ticket.pdf"))
        context.insert(note)
        try context.save()
        try await dataCloud.syncNow()
        try await cloud.syncNow()

        let other = cloud.newBackgroundContext()
        let (title, kind, tags, names) = try await other.perform {
            let notes = try other.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
            let note = try #require(notes.first)
            let attachments = note.value(forKey: "attachments") as? Set<ManagedObject> ?? []
            let result = (note.value(forKey: "title") as? String, note.value(forKey: "kind") as? String,
                          note.value(forKey: "tags") as? [String], attachments.compactMap { $0.value(forKey: "name") as? String })
            note.setValue("Paris, again", forKey: "title")
            try other.save()
            return result
        }
        #expect(title == "Paris")
        #expect(kind == "business")
        #expect(tags == ["food"])
        #expect(names == ["ticket.pdf"])

        let viewer = ModelContext(data)
        let results = try FetchResults(FetchDescriptor<Note>(), in: viewer)
        let fired = Received()
        withObservationTracking { _ = results.models } onChange: { fired.append("models") }
        try await cloud.syncNow()
        try await dataCloud.syncNow()
        viewer.managedObjectContext.performAndWait {}
        #expect(fired.values == ["models"])
        #expect(results.map(\.title) == ["Paris, again"])
        let fresh = try ModelContext(data).fetch(FetchDescriptor<Note>())
        #expect(fresh.map(\.title) == ["Paris, again"])
        #expect(fresh.first?.attachments?.map(\.name) == ["ticket.pdf"])
        #expect(note.title == "Paris, again")
    }

    @Test(".private without a server fails to open with a typed error that says how to give one")
    func privateWithoutServer() throws {
        #expect(throws: SwiftDataError.self) {
            try ModelContainer(for: Schema([Note.self]),
                               configurations: [ModelConfiguration(url: temporaryStoreURL(), cloudKitDatabase: .private("x"))],
                               server: nil)
        }
    }
}
