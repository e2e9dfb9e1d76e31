import Foundation
import Testing

@Suite("Rebuild, erase and copy without cloud metadata", .serialized)
struct StoreOptionsTests {
    static func posts(_ directory: String) throws -> [String] {
        let result = try SyncServer.run(["store", "fetch", directory, "Post", "--json"])
        try SyncServer.check(result)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
        return objects.compactMap { $0["title"] as? String }.sorted()
    }

    static func devices(_ server: SyncServer) throws -> (String, String) {
        let model = try #require(Bundle.module.url(forResource: "Posts", withExtension: "json", subdirectory: "Fixtures"))
        let a = server.folder.url.appendingPathComponent("a").path
        let b = server.folder.url.appendingPathComponent("b").path
        for (directory, token) in [(a, server.tokens[0]), (b, server.tokens[1])] {
            try SyncServer.check(SyncServer.run(["device", "init", directory, "--server", server.url.absoluteString, "--token", token, "--model", model.path]))
        }
        return (a, b)
    }

    @Test("rebuild empties the replica and imports it again; pending changes are refused unless discarded")
    func rebuild() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let (a, b) = try Self.devices(server)
        for title in ["one", "two", "three"] { try SyncServer.check(SyncServer.run(["store", "insert", a, "Post", "title=\(title)"])) }
        try SyncServer.check(SyncServer.run(["device", "sync", a]))
        try SyncServer.check(SyncServer.run(["device", "sync", b]))
        let rebuilt = try SyncServer.run(["device", "rebuild", b])
        try SyncServer.check(rebuilt)
        #expect(rebuilt.output.contains("imported 3"))
        #expect(try Self.posts(b) == ["one", "three", "two"])
        try SyncServer.check(SyncServer.run(["store", "insert", b, "Post", "title=unsent"]))
        let refused = try SyncServer.run(["device", "rebuild", b])
        #expect(refused.status == 77)
        #expect(refused.error.contains("pendingChanges"))
        #expect(try Self.posts(b).contains("unsent"))
        try SyncServer.check(SyncServer.run(["device", "rebuild", b, "--discard-pending"]))
        #expect(try Self.posts(b) == ["one", "three", "two"])
        // The discarded edit never reaches anyone.
        try SyncServer.check(SyncServer.run(["device", "sync", b]))
        try SyncServer.check(SyncServer.run(["device", "sync", a]))
        #expect(try Self.posts(a) == ["one", "three", "two"])
    }

    @Test("erasing cloud content empties the zone, and every device removes its replica at its next sync")
    func erase() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let (a, b) = try Self.devices(server)
        for title in ["one", "two"] { try SyncServer.check(SyncServer.run(["store", "insert", a, "Post", "title=\(title)"])) }
        try SyncServer.check(SyncServer.run(["device", "sync", a]))
        try SyncServer.check(SyncServer.run(["device", "sync", b]))
        #expect(try Self.posts(b).count == 2)
        try SyncServer.check(SyncServer.run(["device", "erase", a]))
        #expect(try Self.posts(a).isEmpty)
        try SyncServer.check(SyncServer.run(["device", "sync", b]))
        #expect(try Self.posts(b).isEmpty)
        // Life goes on in the new zone.
        try SyncServer.check(SyncServer.run(["store", "insert", b, "Post", "title=after"]))
        try SyncServer.check(SyncServer.run(["device", "sync", b]))
        try SyncServer.check(SyncServer.run(["device", "sync", a]))
        #expect(try Self.posts(a) == ["after"])
    }

    @Test("a copy without cloud metadata holds the data and none of the sync tables; an existing file is refused")
    func copy() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let (a, _) = try Self.devices(server)
        try SyncServer.check(SyncServer.run(["store", "insert", a, "Post", "title=kept"]))
        try SyncServer.check(SyncServer.run(["device", "sync", a]))
        let source = try SyncServer.storePath(a)
        let copy = server.folder.url.appendingPathComponent("backup.sqlite").path
        try SyncServer.check(SyncServer.run(["store", "copy", source, copy, "--strip-cloud-metadata"]))
        #expect(try Self.posts(copy) == ["kept"])
        let file = try DatabaseFile(URL(fileURLWithPath: copy))
        #expect(try file.int("SELECT count(*) FROM sqlite_master WHERE name LIKE 'ANIMBUSCLOUD%'") == 0)
        #expect(try file.string("PRAGMA integrity_check") == "ok")
        let again = try SyncServer.run(["store", "copy", source, copy])
        #expect(again.status == 64)
        #expect(again.error.contains("already exists"))
    }
}
