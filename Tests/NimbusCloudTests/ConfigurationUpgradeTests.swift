import Foundation
import Nimbus
import NimbusCloud
import NimbusTesting
import Testing

/// The README's setup — a mirrored "Cloud" store and a "Local" one in one container — takes
/// a model update (one new optional attribute per configuration, and an entity that sorts
/// first) and goes on syncing with a device still on the older model.
@Suite("Cloud + Local stores through a model update", .serialized)
struct ConfigurationUpgradeTests {
    static func model(version: Int) throws -> ManagedObjectModel {
        let cloud = ["Post"] + (version >= 2 ? ["Album"] : [])
        return try ManagedObjectModel(configurations: ["Cloud": cloud, "Local": ["Draft"]]) {
            if version >= 2 {
                EntityDescription("Album") { AttributeDescription("name", .string) }
            }
            EntityDescription("Post") {
                AttributeDescription("title", .string)
                if version >= 2 { AttributeDescription("subtitle", .string) }
            }
            EntityDescription("Draft") {
                AttributeDescription("text", .string)
                if version >= 2 { AttributeDescription("words", .integer64) }
            }
        }
    }

    static func device(_ server: SyncServer, token: String, version: Int, folder: TemporaryDirectory) throws -> Device {
        let container = CloudContainer(name: "notes", managedObjectModel: try model(version: version))
        container.automaticallySyncs = false
        var cloud = PersistentStoreDescription(url: folder.file("Cloud.sqlite"))
        cloud.configuration = "Cloud"
        cloud.cloudContainerOptions = CloudContainerOptions(serverURL: server.url, containerIdentifier: "notes", token: token)
        var local = PersistentStoreDescription(url: folder.file("Local.sqlite"))
        local.configuration = "Local"
        container.persistentStoreDescriptions = [cloud, local]
        try container.loadPersistentStores()
        return Device.wrapping(container, folder: folder)
    }

    @Test("both stores migrate their own entities; the upgraded device's new field reaches the other, and back")
    func cloudAndLocalUpgrade() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        let (folderA, folderB) = (try TemporaryDirectory(), try TemporaryDirectory())
        var a = try Self.device(server, token: server.tokens[0], version: 1, folder: folderA)
        let b = try Self.device(server, token: server.tokens[1], version: 1, folder: folderB)
        try await a.edit { context in
            let post = try context.insertNewObject(forEntityName: "Post")
            post.setValue("hello", forKey: "title")
            let draft = try context.insertNewObject(forEntityName: "Draft")
            draft.setValue("not shared", forKey: "text")
        }
        try await a.container.syncNow()
        try await b.container.syncNow()

        try a.close()
        a = try Self.device(server, token: server.tokens[0], version: 2, folder: folderA)
        #expect(try await a.snapshot("Draft", key: "text").keys.sorted() == ["not shared"])
        try await a.edit { context in
            let post = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).first)
            post.setValue("world", forKey: "subtitle")
            let album = try context.insertNewObject(forEntityName: "Album")
            album.setValue("trip", forKey: "name")
        }
        try await a.container.syncNow()
        try await b.container.syncNow()
        try await b.edit { context in
            let post = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).first)
            post.setValue("hello from v1", forKey: "title")
        }
        try await b.container.syncNow()
        try await a.container.syncNow()
        let posts = try await a.snapshot("Post", key: "title")
        #expect(posts["hello from v1"]?["subtitle"] == "world", "\(posts)")
        #expect(try await a.snapshot("Album", key: "name").keys.sorted() == ["trip"])
        #expect(try await b.snapshot("Draft", key: "text").isEmpty)
    }
}
