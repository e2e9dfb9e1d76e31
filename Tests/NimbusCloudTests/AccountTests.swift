import Foundation
import Testing

@Suite("Accounts: sign-in, sign-out and switching on a device", .serialized)
struct AccountTests {
    static func fetch(_ directory: String, _ entity: String, _ key: String) throws -> [String] {
        let result = try SyncServer.run(["store", "fetch", directory, entity, "--json"])
        try SyncServer.check(result)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
        return objects.compactMap { $0[key] as? String }.sorted()
    }

    static func run(_ arguments: String...) throws {
        try SyncServer.check(SyncServer.run(Array(arguments)))
    }

    @Test("local data moves into the account on sign-in without duplicates; unsent edits survive sign-out and a switch, and upload when the account returns")
    func transitions() async throws {
        let server = try await SyncServer(otherUsers: ["bob"])
        defer { server.stop() }
        let model = try #require(Bundle.module.url(forResource: "Tags", withExtension: "json", subdirectory: "Fixtures"))
        let a = server.folder.url.appendingPathComponent("a").path
        let b = server.folder.url.appendingPathComponent("b").path
        let bob = try #require(server.otherTokens["bob"])
        for (directory, token) in [(a, server.tokens[0]), (b, server.tokens[1])] {
            try Self.run("device", "init", directory, "--server", server.url.absoluteString, "--token", token, "--model", model.path)
        }
        // Alice's other device already has the tag "swift" in the cloud.
        try Self.run("store", "insert", b, "Tag", "name=swift")
        try Self.run("device", "sync", b)

        // Signed out, the device saves locally; signing in moves that into the account.
        try Self.run("device", "logout", a)
        try Self.run("store", "insert", a, "Tag", "name=swift")
        try Self.run("store", "insert", a, "Post", "title=written offline")
        try Self.run("device", "login", a, "--token", server.tokens[0])
        try Self.run("device", "sync", a)
        try Self.run("device", "sync", b)
        #expect(try Self.fetch(b, "Post", "title") == ["written offline"])
        #expect(try Self.fetch(b, "Tag", "name") == ["swift"])
        #expect(try Self.fetch(a, "Tag", "name") == ["swift"])

        // An edit not yet sent stays with Alice's account through a sign-out and a switch to Bob.
        try Self.run("store", "insert", a, "Post", "title=unsent")
        try Self.run("device", "logout", a)
        #expect(try Self.fetch(a, "Post", "title").isEmpty)   // the account's data left; the local store is empty
        try Self.run("device", "switch", a, "--token", bob)
        try Self.run("store", "insert", a, "Post", "title=bob's post")
        try Self.run("device", "sync", a)
        #expect(try Self.fetch(a, "Post", "title") == ["bob's post"])
        try Self.run("device", "switch", a, "--token", server.tokens[0])
        #expect(try Self.fetch(a, "Post", "title") == ["unsent", "written offline"])
        try Self.run("device", "sync", a)
        try Self.run("device", "sync", b)
        #expect(try Self.fetch(b, "Post", "title") == ["unsent", "written offline"])   // and nothing of Bob's
    }

    @Test("a device made while the server was unreachable uploads its edits once the server names the account, then uses that account's store")
    func madeOffline() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try #require(Bundle.module.url(forResource: "Tags", withExtension: "json", subdirectory: "Fixtures"))
        let a = server.folder.url.appendingPathComponent("a")
        let b = server.folder.url.appendingPathComponent("b").path
        try Self.run("device", "init", a.path, "--server", "http://127.0.0.1:9", "--token", server.tokens[0], "--model", model.path)
        try Self.run("device", "init", b, "--server", server.url.absoluteString, "--token", server.tokens[1], "--model", model.path)
        for index in 0..<5 { try Self.run("store", "insert", a.path, "Post", "title=offline \(index)") }
        let expected = (0..<5).map { "offline \($0)" }
        // The server is reachable now.
        let configurationURL = a.appendingPathComponent("device.json")
        var configuration = try #require(JSONSerialization.jsonObject(with: Data(contentsOf: configurationURL)) as? [String: Any])
        configuration["server"] = server.url.absoluteString
        try JSONSerialization.data(withJSONObject: configuration).write(to: configurationURL)
        func accountFolders() throws -> [String] {
            let all = FileManager.default.enumerator(at: a, includingPropertiesForKeys: nil)?.allObjects.compactMap { $0 as? URL } ?? []
            return all.filter { $0.deletingLastPathComponent().lastPathComponent == "accounts" }.map(\.lastPathComponent).sorted()
        }
        #expect(try accountFolders().allSatisfy { $0.hasPrefix("unverified-") })
        try Self.run("device", "sync", a.path)
        // (Each of the device's stores, private and shared, has its account folder.)
        let folders = try accountFolders()
        #expect(Set(folders) == ["alice"])
        #expect(try Self.fetch(a.path, "Post", "title") == expected)
        try Self.run("device", "sync", b)
        #expect(try Self.fetch(b, "Post", "title") == expected)
    }

    @Test("a damaged saved account is a clear error, never taken for signed out")
    func damagedAccountFile() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try #require(Bundle.module.url(forResource: "Tags", withExtension: "json", subdirectory: "Fixtures"))
        let a = server.folder.url.appendingPathComponent("a").path
        try Self.run("device", "init", a, "--server", server.url.absoluteString, "--token", server.tokens[0], "--model", model.path)
        try Self.run("store", "insert", a, "Post", "title=kept")
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: a).appendingPathComponent("account.json"))
        let refused = try SyncServer.run(["device", "status", a])
        #expect(refused.status == 64)
        #expect(refused.error.contains("invalidConfiguration"))
        try Self.run("device", "login", a, "--token", server.tokens[0])
        #expect(try Self.fetch(a, "Post", "title") == ["kept"])
    }

    @Test("signing in with a wrong token is refused and changes nothing")
    func wrongToken() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try #require(Bundle.module.url(forResource: "Tags", withExtension: "json", subdirectory: "Fixtures"))
        let a = server.folder.url.appendingPathComponent("a").path
        try Self.run("device", "init", a, "--server", server.url.absoluteString, "--token", server.tokens[0], "--model", model.path)
        try Self.run("store", "insert", a, "Post", "title=kept")
        let refused = try SyncServer.run(["device", "login", a, "--token", "nmb_wrong"])
        #expect(refused.status == 77)
        #expect(refused.error.contains("notAuthenticated"))
        #expect(try Self.fetch(a, "Post", "title") == ["kept"])
    }
}

@Suite("Accounts: a crash in the middle of a store swap", .serialized)
struct AccountSwapKillTests {
    @Test("sign-in killed with SIGKILL at seeded instants: the local data moves once, nothing lost or duplicated")
    func killedSignIn() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let model = try #require(Bundle.module.url(forResource: "Tags", withExtension: "json", subdirectory: "Fixtures"))
        let a = server.folder.url.appendingPathComponent("a").path
        let b = server.folder.url.appendingPathComponent("b").path
        for (directory, token) in [(a, server.tokens[0]), (b, server.tokens[1])] {
            try AccountTests.run("device", "init", directory, "--server", server.url.absoluteString, "--token", token, "--model", model.path)
        }
        try AccountTests.run("device", "logout", a)
        for index in 0..<20 { try AccountTests.run("store", "insert", a, "Post", "title=local \(index)") }
        let expected = (0..<20).map { "local \($0)" }.sorted()
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<8 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try SyncServer.executable)
            process.arguments = ["device", "login", a, "--token", server.tokens[0]]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            try await Task.sleep(for: .milliseconds(Int.random(in: 5...120, using: &generator)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // Whatever the instant, the device opens on one set of stores holding every post once.
            #expect(try AccountTests.fetch(a, "Post", "title") == expected)
        }
        try AccountTests.run("device", "login", a, "--token", server.tokens[0])
        try AccountTests.run("device", "sync", a)
        try AccountTests.run("device", "sync", b)
        #expect(try AccountTests.fetch(a, "Post", "title") == expected)
        #expect(try AccountTests.fetch(b, "Post", "title") == expected)
        try AccountTests.run("device", "logout", a)
        #expect(try AccountTests.fetch(a, "Post", "title").isEmpty)
    }

    /// Runs `nimbus` with `arguments` and kills it with SIGKILL after `delay`.
    static func killed(after delay: Duration, _ arguments: String...) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try SyncServer.executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try await Task.sleep(for: delay)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    @Test("a switch and a sign-out killed with SIGKILL at seeded instants: one set of stores, the unsent edits kept and uploaded once")
    func killedSwitchAndSignOut() async throws {
        let server = try await SyncServer(otherUsers: ["bob"])
        defer { server.stop() }
        let bobToken = try #require(server.otherTokens["bob"])
        let model = try #require(Bundle.module.url(forResource: "Tags", withExtension: "json", subdirectory: "Fixtures"))
        let a = server.folder.url.appendingPathComponent("a").path
        let b = server.folder.url.appendingPathComponent("b").path
        for (directory, token) in [(a, server.tokens[0]), (b, server.tokens[1])] {
            try AccountTests.run("device", "init", directory, "--server", server.url.absoluteString, "--token", token, "--model", model.path)
        }
        // Alice's edits, never sent.
        for index in 0..<20 { try AccountTests.run("store", "insert", a, "Post", "title=alice \(index)") }
        let alice = (0..<20).map { "alice \($0)" }.sorted()
        var generator = SeededGenerator(seed: 11)
        for round in 0..<6 {
            try await Self.killed(after: .milliseconds(Int.random(in: 5...150, using: &generator)), "device", "switch", a, "--token", bobToken)
            // Alice's set or Bob's (empty), never a mix or a loss.
            let seen = try AccountTests.fetch(a, "Post", "title")
            #expect(seen == alice || seen.isEmpty, "round \(round): \(seen.count) posts")
            try AccountTests.run("device", "switch", a, "--token", server.tokens[0])
            #expect(try AccountTests.fetch(a, "Post", "title") == alice, "round \(round), back on Alice")
        }
        for round in 0..<6 {
            try await Self.killed(after: .milliseconds(Int.random(in: 5...150, using: &generator)), "device", "logout", a)
            let seen = try AccountTests.fetch(a, "Post", "title")
            #expect(seen == alice || seen.isEmpty, "round \(round): \(seen.count) posts")
            try AccountTests.run("device", "login", a, "--token", server.tokens[0])
            #expect(try AccountTests.fetch(a, "Post", "title") == alice, "round \(round), signed in again")
        }
        try AccountTests.run("device", "sync", a)
        try AccountTests.run("device", "sync", b)
        #expect(try AccountTests.fetch(b, "Post", "title") == alice)
    }
}
