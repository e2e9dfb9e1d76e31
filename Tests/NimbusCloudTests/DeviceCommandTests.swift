import Foundation
import Testing

@Suite("nimbus device commands against nimbus serve", .serialized)
struct DeviceCommandTests {
    @Test("two device folders converge through the CLI; store update edits and exports; the demo passes")
    func devices() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try #require(Bundle.module.url(forResource: "Posts", withExtension: "json", subdirectory: "Fixtures"))
        let a = server.folder.url.appendingPathComponent("a").path
        let b = server.folder.url.appendingPathComponent("b").path
        for (directory, token) in [(a, server.tokens[0]), (b, server.tokens[1])] {
            try SyncServer.check(SyncServer.run(["device", "init", directory, "--server", server.url.absoluteString,
                                                 "--token", token, "--model", model.path, "--container", "cli"]))
        }
        try SyncServer.check(SyncServer.run(["store", "insert", a, "Post", "title=Hello", "views=1"]))
        let status = try SyncServer.run(["device", "status", a, "--json"])
        #expect(status.output.contains("\"pendingUploads\" : 1"))
        try SyncServer.check(SyncServer.run(["device", "sync", a]))
        try SyncServer.check(SyncServer.run(["device", "sync", b]))
        try SyncServer.check(SyncServer.run(["store", "update", b, "Post", "--predicate", "title == 'Hello'", "views=5"]))
        try SyncServer.check(SyncServer.run(["device", "sync", b]))
        try SyncServer.check(SyncServer.run(["device", "sync", a]))
        let fetched = try SyncServer.run(["store", "fetch", a, "Post", "--json"])
        try SyncServer.check(fetched)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(fetched.output.utf8)) as? [[String: Any]])
        #expect(objects.count == 1)
        #expect(objects.first?["views"] as? Int == 5)
        // A wrong token: a clear one-line error, non-zero exit, the store still usable.
        let c = server.folder.url.appendingPathComponent("c").path
        try SyncServer.check(SyncServer.run(["device", "init", c, "--server", server.url.absoluteString, "--token", "nmb_wrong", "--model", model.path]))
        try SyncServer.check(SyncServer.run(["store", "insert", c, "Post", "title=local"]))
        let refused = try SyncServer.run(["device", "sync", c])
        #expect(refused.status == 77, "needs the user: a new token")
        #expect(refused.error.contains("notAuthenticated"))
        #expect(try SyncServer.run(["store", "fetch", c, "Post", "--json"]).output.contains("local"))
    }

    @Test("an unreachable server fails the sync clearly and keeps the edit pending")
    func unreachable() async throws {
        let server = try await SyncServer()
        let model = try #require(Bundle.module.url(forResource: "Posts", withExtension: "json", subdirectory: "Fixtures"))
        let a = server.folder.url.appendingPathComponent("a").path
        try SyncServer.check(SyncServer.run(["device", "init", a, "--server", server.url.absoluteString, "--token", server.tokens[0], "--model", model.path]))
        server.stop()
        try SyncServer.check(SyncServer.run(["store", "insert", a, "Post", "title=offline"]))
        let result = try SyncServer.run(["device", "sync", a])
        #expect(result.status == 75, "retry later")
        #expect(result.error.hasPrefix("nimbus: network: "), "Nimbus's words first: \(result.error)")
        #expect(try SyncServer.run(["device", "status", a, "--json"]).output.contains("\"pendingUploads\" : 1"))
    }

    @Test("a signed-out device's sync exits 77 (needs the user), changes nothing, and syncs once signed in again")
    func signedOut() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try #require(Bundle.module.url(forResource: "Posts", withExtension: "json", subdirectory: "Fixtures"))
        let a = server.folder.url.appendingPathComponent("a").path
        try SyncServer.check(SyncServer.run(["device", "init", a, "--server", server.url.absoluteString, "--token", server.tokens[0], "--model", model.path]))
        try SyncServer.check(SyncServer.run(["device", "logout", a]))
        try SyncServer.check(SyncServer.run(["store", "insert", a, "Post", "title=while signed out"]))
        let refused = try SyncServer.run(["device", "sync", a])
        #expect(refused.status == 77, "\(refused.output)\n\(refused.error)")
        #expect(refused.error.hasPrefix("nimbus: ") && refused.error.contains("signed out") && refused.error.contains("device login"), "\(refused.error)")
        #expect(!refused.output.contains("in step"))
        try SyncServer.check(SyncServer.run(["device", "login", a, "--token", server.tokens[0]]))
        try SyncServer.check(SyncServer.run(["device", "sync", a]))
        #expect(try SyncServer.run(["store", "fetch", a, "Post", "--json"]).output.contains("while signed out"))
    }

    @Test("a full quota exits 77 (needs the user) and keeps the edit pending")
    func quotaFull() async throws {
        let server = try await SyncServer(quotaBytes: 2_000)
        defer { server.stop() }
        let model = try #require(Bundle.module.url(forResource: "Posts", withExtension: "json", subdirectory: "Fixtures"))
        let a = server.folder.url.appendingPathComponent("a").path
        try SyncServer.check(SyncServer.run(["device", "init", a, "--server", server.url.absoluteString, "--token", server.tokens[0], "--model", model.path]))
        let long = server.folder.url.appendingPathComponent("long.txt")
        try Data(String(repeating: "x", count: 10_000).utf8).write(to: long)
        try SyncServer.check(SyncServer.run(["store", "insert", a, "Post", "title=@\(long.path)"]))
        let refused = try SyncServer.run(["device", "sync", a])
        #expect(refused.status == 77, "\(refused.output)\n\(refused.error)")
        #expect(refused.error.hasPrefix("nimbus: quotaExceeded: "), "\(refused.error)")
        #expect(try SyncServer.run(["device", "status", a, "--json"]).output.contains("\"pendingUploads\" : 1"))
    }

    @Test("rate limited exits 75 (retry later) with the server's wait, and keeps the edit pending")
    func rateLimited() async throws {
        // One request per token per 100 s: the device's first request (init asks who the token is) uses it up.
        let server = try await SyncServer(serveArguments: ["--rate-limit", "0.01", "--rate-burst", "1"])
        defer { server.stop() }
        let model = try #require(Bundle.module.url(forResource: "Posts", withExtension: "json", subdirectory: "Fixtures"))
        let a = server.folder.url.appendingPathComponent("a").path
        try SyncServer.check(SyncServer.run(["device", "init", a, "--server", server.url.absoluteString, "--token", server.tokens[0], "--model", model.path]))
        try SyncServer.check(SyncServer.run(["store", "insert", a, "Post", "title=later"]))
        let refused = try SyncServer.run(["device", "sync", a])
        #expect(refused.status == 75, "\(refused.output)\n\(refused.error)")
        #expect(refused.error.hasPrefix("nimbus: rateLimited: ") && refused.error.contains("retry after"), "\(refused.error)")
        #expect(try SyncServer.run(["device", "status", a, "--json"]).output.contains("\"pendingUploads\" : 1"))
    }

    @Test("tags+=Tag[name=…] is resolved on the device that runs it: the link reaches the other device, where URIs differ")
    func linkByKey() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = server.folder.url.appendingPathComponent("links.json")
        try Data(#"""
            {"configurations":{},"entities":[
             {"name":"Post","attributes":[{"name":"title","type":"string"}],
              "relationships":[{"name":"tags","destinationEntityName":"Tag","inverseName":"posts","isToMany":true,"deleteRule":"nullify"}]},
             {"name":"Tag","attributes":[{"name":"name","type":"string"}],
              "relationships":[{"name":"posts","destinationEntityName":"Post","inverseName":"tags","isToMany":true,"deleteRule":"nullify"}]}]}
            """#.utf8).write(to: model)
        let a = server.folder.url.appendingPathComponent("a").path
        let b = server.folder.url.appendingPathComponent("b").path
        for (directory, token) in [(a, server.tokens[0]), (b, server.tokens[1])] {
            try SyncServer.check(SyncServer.run(["device", "init", directory, "--server", server.url.absoluteString,
                                                 "--token", token, "--model", model.path, "--container", "links"]))
        }
        // b makes its own objects first, so the same objects get other URIs on each device.
        try SyncServer.check(SyncServer.run(["store", "insert", b, "Tag", "name=b-only"]))
        for value in ["name=swift", "name=linux"] { try SyncServer.check(SyncServer.run(["store", "insert", a, "Tag", value])) }
        try SyncServer.check(SyncServer.run(["store", "insert", a, "Post", "title=Hello", "tags=Tag[name=linux]"]))
        for device in [a, b, a] { try SyncServer.check(SyncServer.run(["device", "sync", device])) }
        try SyncServer.check(SyncServer.run(["store", "update", b, "Post", "--predicate", "title == 'Hello'",
                                             "tags+=Tag[name=swift]", "tags-=name == 'linux'"]))
        for device in [b, a] { try SyncServer.check(SyncServer.run(["device", "sync", device])) }
        let tags = try SyncServer.run(["store", "fetch", a, "Tag", "--predicate", "ANY posts.title == 'Hello'", "--properties", "name", "--json"])
        try SyncServer.check(tags)
        let names = try #require(try JSONSerialization.jsonObject(with: Data(tags.output.utf8)) as? [[String: Any]]).compactMap { $0["name"] as? String }
        #expect(names == ["swift"], "\(tags.output)")
    }

    @Test("nimbus demo --accounts converges and keeps accounts apart")
    func demo() throws {
        let result = try SyncServer.run(["demo", "--accounts"])
        #expect(result.status == 0, "\(result.output)\n\(result.error)")
        #expect(result.output.contains("both replicas hold the same data"))
        #expect(result.output.contains("accounts: the post written before signing out reached"))
    }
}
