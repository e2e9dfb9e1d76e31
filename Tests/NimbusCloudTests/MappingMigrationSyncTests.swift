import Foundation
import Nimbus
import NimbusCloud
import NimbusTesting
import Testing

/// A mirrored store migrated by a mapping model (a new file, new primary keys) goes on
/// syncing: its objects keep their records, what the mapping computed goes out, what it
/// removed is deleted, unsent edits survive, and edits made elsewhere are not overwritten by
/// values the migration left alone.
@Suite("Mapping-model migration of a mirrored store", .serialized)
struct MappingMigrationSyncTests {
    /// v1 plus `Post.summary`, which the mapping computes from the title.
    static func v3() throws -> ManagedObjectModel { try LifeModels.v1(summary: true) }

    /// Posts titled "drop me" are left behind; every kept post gets a summary.
    static func mapping() -> MappingModel {
        func source(_ key: String) -> MappingExpression { .keyPath(variable: "source", [key]) }
        func related(_ key: String) -> MappingExpression {
            .function(receiver: .keyPath(variable: "manager", []), selector: "destinationInstancesForEntityMappingNamed:sourceInstances:",
                      arguments: [.constant(.string("")), source(key)])
        }
        return MappingModel(entityMappings: [
            EntityMapping(kind: .transform, source: "Post", destination: "Post", sourcePredicate: "title != 'drop me'",
                          attributeMappings: ["title", "body", "views", "rating"].map { PropertyMapping($0, source($0)) }
                              + [PropertyMapping("summary", .function(receiver: source("title"), selector: "uppercaseString", arguments: []))],
                          relationshipMappings: [PropertyMapping("tags", related("tags")), PropertyMapping("notes", related("notes"))]),
            EntityMapping(kind: .copy, source: "Tag", destination: "Tag"),
            EntityMapping(kind: .copy, source: "Note", destination: "Note"),
        ])
    }

    /// The app update: the store migrates by the mapping, then opens on v3.
    static func upgrade(_ device: Device, _ server: SyncServer, token: String, folder: TemporaryDirectory) throws -> Device {
        try device.close()
        let plan = try StagedMigrationPlan([.custom(from: try LifeModels.v1(), to: try v3(), mapping: mapping())])
        #expect(try plan.migrateStore(at: folder.url.appendingPathComponent("Life.sqlite")).count == 1)
        return try LifeModels.device(server, token: token, model: try v3(), folder: folder)
    }

    @Test("objects keep their records; computed values go out, removed objects are deleted, other devices' edits stay")
    func mappingMigrationKeepsSyncing() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        let (folderA, folderB) = (try TemporaryDirectory(), try TemporaryDirectory())
        var a = try LifeModels.device(server, token: server.tokens[0], model: try LifeModels.v1(), folder: folderA)
        var b = try LifeModels.device(server, token: server.tokens[1], model: try LifeModels.v1(), folder: folderB)
        try await a.edit { context in
            let swift = try context.insertNewObject(forEntityName: "Tag")
            swift.setValue("swift", forKey: "name")
            for title in ["keep", "drop me", "edit me"] {
                let post = try context.insertNewObject(forEntityName: "Post")
                post.setValue(title, forKey: "title")
                post.setValue("body of \(title)", forKey: "body")
                try post.addObjects([swift], toRelationship: "tags")
            }
        }
        try await a.container.syncNow()
        try await b.container.syncNow()
        // B edits a post and syncs; A has not seen it when it updates.
        try await b.edit { context in
            let post = try #require(try context.fetch(AppLifeTests.posts("title == 'edit me'")).first)
            post.setValue("edited on B", forKey: "body")
        }
        try await b.container.syncNow()
        // A edits and quits before syncing; the update migrates its store by the mapping.
        try await a.edit { context in
            let post = try #require(try context.fetch(AppLifeTests.posts("title == 'keep'")).first)
            post.setValue("unsent edit on A", forKey: "body")
        }
        a = try Self.upgrade(a, server, token: server.tokens[0], folder: folderA)
        try await a.container.syncNow()

        let onA = try await a.snapshot("Post", key: "title")
        #expect(onA.keys.sorted() == ["edit me", "keep"], "\(onA)")
        #expect(onA["keep"]?["summary"] == "KEEP")
        #expect(onA["keep"]?["body"] == "unsent edit on A")
        #expect(onA["edit me"]?["body"] == "edited on B", "the migration re-sent a value it did not change: \(onA)")
        #expect(onA["edit me"]?["tags"] == "swift")
        #expect(try a.container.syncStatus().first?.pendingUploads == 0)

        // B, still on v1: the removed post is deleted, the unsent edit arrives, no duplicates.
        try await b.container.syncNow()
        let onB = try await b.snapshot("Post", key: "title")
        #expect(onB.keys.sorted() == ["edit me", "keep"], "\(onB)")
        #expect(onB["keep"]?["body"] == "unsent edit on A")
        #expect(onB["edit me"]?["body"] == "edited on B")
        #expect(try await b.snapshot("Tag", key: "name").keys.sorted() == ["swift"])

        // B takes the same update: the replicas agree.
        b = try Self.upgrade(b, server, token: server.tokens[1], folder: folderB)
        try await b.container.syncNow()
        try await a.container.syncNow()
        #expect(try await b.snapshot("Post", key: "title") == (try await a.snapshot("Post", key: "title")))
        #expect(try await b.snapshot("Tag", key: "name") == (try await a.snapshot("Tag", key: "name")))
        #expect(try b.container.quarantinedRecords().isEmpty)
    }
}
