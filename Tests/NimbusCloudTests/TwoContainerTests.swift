import Foundation
import Nimbus
import NimbusCloud
import NimbusTesting
import NimbusWire
import Testing

@Suite("Several cloud stores in one container")
struct TwoContainerTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(configurations: ["Notes": ["Note"], "Photos": ["Photo"]]) {
            EntityDescription("Note") { AttributeDescription("text", .string) }
            EntityDescription("Photo") { AttributeDescription("caption", .string) }
        }
    }

    static func container(_ server: SyncServer, token: String, folder: TemporaryDirectory) throws -> CloudContainer {
        let container = CloudContainer(name: "app", managedObjectModel: try model())
        container.automaticallySyncs = false
        container.persistentStoreDescriptions = ["Notes", "Photos"].map { configuration in
            var description = PersistentStoreDescription(url: folder.url.appendingPathComponent("\(configuration).sqlite"))
            description.configuration = configuration
            description.cloudContainerOptions = CloudContainerOptions(serverURL: server.url, containerIdentifier: "com.example.\(configuration.lowercased())", token: token)
            return description
        }
        try container.loadPersistentStores()
        return container
    }

    @Test("a second cloud store for another container identifier syncs beside the first, each in its own container")
    func twoContainers() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let folderA = try TemporaryDirectory(), folderB = try TemporaryDirectory()
        let a = try Self.container(server, token: server.tokens[0], folder: folderA)
        let b = try Self.container(server, token: server.tokens[1], folder: folderB)
        let context = a.newBackgroundContext()
        try await context.perform {
            let note = try context.insertNewObject(forEntityName: "Note")
            note.setValue("a note", forKey: "text")
            let photo = try context.insertNewObject(forEntityName: "Photo")
            photo.setValue("a photo", forKey: "caption")
            try context.save()
        }
        try await a.syncNow()
        try await b.syncNow()
        let other = b.newBackgroundContext()
        let (notes, photos) = try await other.perform {
            (try other.fetch(FetchRequest<ManagedObject>(entityName: "Note")).map { $0.value(forKey: "text") as? String },
             try other.fetch(FetchRequest<ManagedObject>(entityName: "Photo")).map { $0.value(forKey: "caption") as? String })
        }
        #expect(notes == ["a note"])
        #expect(photos == ["a photo"])
        // Each store's records live in its own container on the server.
        for (container, expected) in [("com.example.notes", "CD_Note"), ("com.example.photos", "CD_Photo")] {
            let transport = HTTPTransport(options: CloudContainerOptions(serverURL: server.url, containerIdentifier: container, token: server.tokens[0]))
            let page = try await transport.fetchChanges(FetchZoneChangesRequest(), in: ZoneID(zoneName: CloudContainerOptions.defaultZoneName))
            #expect(page.records.map(\.recordType) == [expected])
        }
    }
}
