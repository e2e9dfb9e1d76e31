import Foundation
import Nimbus
import NimbusCloud
import NimbusData
import Testing

@Suite("cloudKitDatabase mirrors through a Nimbus server")
struct CloudSyncTests {
    @Test("a NimbusData container and a CloudContainer of the same entities sync with each other both ways")
    func syncWithCloudContainer() async throws {
        let server = try await LoopbackServer.start(devices: 2)
        defer { Task { await server.stop() } }
        let identifier = "com.example.trips"
        let data = try ModelContainer(
            for: Schema([Trip.self, BucketListItem.self, LivingAccommodation.self]),
            configurations: [ModelConfiguration(url: temporaryStoreURL(), cloudKitDatabase: .private(identifier))],
            server: SyncServer(url: server.url, token: server.tokens[0]))
        let dataCloud = try #require(data.cloudContainer)
        dataCloud.automaticallySyncs = false

        // The other device: Nimbus's own API over the same entities (the model the schema makes).
        let model = try Schema([Trip.self, BucketListItem.self, LivingAccommodation.self]).makeManagedObjectModel()
        let cloud = CloudContainer(name: "other", managedObjectModel: model)
        cloud.automaticallySyncs = false
        var description = PersistentStoreDescription(url: temporaryStoreURL("Other.sqlite"))
        description.cloudContainerOptions = CloudContainerOptions(serverURL: server.url, containerIdentifier: identifier, token: server.tokens[1])
        cloud.persistentStoreDescriptions = [description]
        try await cloud.loadPersistentStores()

        let context = ModelContext(data)
        let trip = Trip(name: "Paris", destination: "France")
        trip.kind = .business
        trip.tags = ["food"]
        trip.bucketList.append(BucketListItem(title: "Louvre"))
        context.insert(trip)
        try context.save()
        try await dataCloud.syncNow()
        try await cloud.syncNow()

        let other = cloud.newBackgroundContext()
        let (name, kind, titles) = try await other.perform {
            let trips = try other.fetch(FetchRequest<ManagedObject>(entityName: "Trip"))
            let trip = try #require(trips.first)
            let items = trip.value(forKey: "bucketList") as? Set<ManagedObject> ?? []
            trip.setValue("Paris, again", forKey: "name")
            try other.save()
            return (trip.value(forKey: "name") as? String, trip.value(forKey: "kind") as? String,
                    items.compactMap { $0.value(forKey: "title") as? String })
        }
        #expect(name == "Paris, again")
        #expect(kind == "business")
        #expect(titles == ["Louvre"])

        try await cloud.syncNow()
        try await dataCloud.syncNow()
        let fresh = try ModelContext(data).fetch(FetchDescriptor<Trip>())
        #expect(fresh.map(\.name) == ["Paris, again"])
        #expect(fresh.first?.bucketList.map(\.title) == ["Louvre"])
    }

    @Test(".private without a server fails to open with a typed error that says how to give one")
    func privateWithoutServer() throws {
        #expect(throws: SwiftDataError.self) {
            try ModelContainer(for: Schema([Trip.self]),
                               configurations: [ModelConfiguration(url: temporaryStoreURL(), cloudKitDatabase: .private("x"))],
                               server: nil)
        }
    }
}
