import Foundation
import Testing

/// What apps live through, driven through the CLI on real processes as scripts drive it: a
/// device whose clock is days ahead (libfaketime), a device upgraded with `nimbus store
/// migrate`, values JSON can't write, records set aside as `device status --json` shows them.
@Suite("nimbus device: an app's whole life through the CLI", .serialized)
struct AppLifeCLITests {
    /// A device folder's model, v1 and v2 (an entity that sorts first, and a field).
    static let v1 = """
        {"configurations":{},"entities":[{"name":"Post","attributes":[{"name":"title","type":"string"},\
        {"name":"views","type":"integer64","defaultValue":{"integer":0}},{"name":"rating","type":"double"}],"relationships":[]}]}
        """
    static let v2 = """
        {"configurations":{},"entities":[{"name":"Album","attributes":[{"name":"name","type":"string"}],"relationships":[]},\
        {"name":"Post","attributes":[{"name":"title","type":"string"},\
        {"name":"views","type":"integer64","defaultValue":{"integer":0}},{"name":"rating","type":"double"},\
        {"name":"mood","type":"integer16"}],"relationships":[]}]}
        """

    /// Runs `nimbus` with the clock `offset` away from the real one (libfaketime).
    static func run(_ arguments: [String], clock offset: String? = nil) throws -> (status: Int32, output: String, error: String) {
        guard let offset else { return try SyncServer.run(arguments) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/faketime")
        process.arguments = ["-f", offset, try SyncServer.executable] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["FAKETIME_DONT_FAKE_MONOTONIC": "1"]) { _, new in new }
        let (output, error) = try process.runCapturingOutput()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self))
    }

    static func fetch(_ directory: String, _ entity: String = "Post") throws -> [[String: Any]] {
        let result = try SyncServer.run(["store", "fetch", directory, entity, "--json"])
        try SyncServer.check(result)
        return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]])
    }

    static func devices(_ server: SyncServer, model: String, count: Int) throws -> [String] {
        let modelURL = server.folder.url.appendingPathComponent("model-v1.json")
        try Data(model.utf8).write(to: modelURL)
        return try (0..<count).map { index in
            let directory = server.folder.url.appendingPathComponent("device\(index)").path
            try SyncServer.check(SyncServer.run(["device", "init", directory, "--server", server.url.absoluteString,
                                                 "--token", server.tokens[index], "--model", modelURL.path, "--container", "life"]))
            return directory
        }
    }

    @Test("a device whose clock runs three days ahead syncs with the others, and after its clock is fixed too",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/faketime"), "needs faketime (Debian's package)"))
    func clockAhead() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        let devices = try Self.devices(server, model: Self.v1, count: 2)
        let (a, ahead) = (devices[0], devices[1])
        try SyncServer.check(Self.run(["store", "insert", ahead, "Post", "title=from the future", "views=1"], clock: "+3d"))
        let first = try Self.run(["device", "sync", ahead], clock: "+3d")
        #expect(first.status == 0, "\(first.error)")
        try SyncServer.check(SyncServer.run(["device", "sync", a]))
        #expect(try Self.fetch(a).first?["title"] as? String == "from the future")
        // A's edit is later in real time: it must win, although the other device's clock says otherwise.
        try SyncServer.check(SyncServer.run(["store", "update", a, "Post", "--predicate", "views == 1", "title=later, on a true clock"]))
        try SyncServer.check(SyncServer.run(["device", "sync", a]))
        let second = try Self.run(["device", "sync", ahead], clock: "+3d")
        #expect(second.status == 0, "\(second.error)")
        #expect(try Self.fetch(ahead).first?["title"] as? String == "later, on a true clock")
        // An edit saved while the clock ran ahead, synced after it was fixed.
        try SyncServer.check(Self.run(["store", "update", ahead, "Post", "--predicate", "views == 1", "views=2"], clock: "+3d"))
        let fixed = try SyncServer.run(["device", "sync", ahead])
        #expect(fixed.status == 0, "\(fixed.error)")
        try SyncServer.check(SyncServer.run(["device", "sync", a]))
        #expect(try Self.fetch(a).first?["views"] as? Int == 2)
        try SyncServer.check(SyncServer.run(["store", "update", a, "Post", "--predicate", "views == 2", "views=3"]))
        try SyncServer.check(SyncServer.run(["device", "sync", a]))
        try SyncServer.check(SyncServer.run(["device", "sync", ahead]))
        #expect(try Self.fetch(ahead).first?["views"] as? Int == 3)
        #expect(try Self.fetch(a).first?["views"] as? Int == 3)
        // Days behind, too.
        try SyncServer.check(Self.run(["store", "update", ahead, "Post", "--predicate", "views == 3", "views=4"], clock: "-2d"))
        #expect(try Self.run(["device", "sync", ahead], clock: "-2d").status == 0)
        try SyncServer.check(SyncServer.run(["device", "sync", a]))
        #expect(try Self.fetch(a).first?["views"] as? Int == 4, "an edit made on a clock two days behind is still the latest")
    }

    @Test("store migrate upgrades a device folder; v1 and v2 devices sync together; infinities print as JSON strings")
    func upgradeThroughTheCLI() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        let devices = try Self.devices(server, model: Self.v1, count: 2)
        let (old, upgraded) = (devices[0], devices[1])
        try SyncServer.check(SyncServer.run(["store", "insert", old, "Post", "title=shared", "rating=inf"]))
        try SyncServer.check(SyncServer.run(["device", "sync", old]))
        try SyncServer.check(SyncServer.run(["device", "sync", upgraded]))
        #expect(try Self.fetch(upgraded).first?["rating"] as? String == "inf")
        // An edit not yet sent when the app updates.
        try SyncServer.check(SyncServer.run(["store", "update", upgraded, "Post", "--predicate", "title == 'shared'", "views=7"]))
        let v2 = server.folder.url.appendingPathComponent("model-v2.json")
        try Data(Self.v2.utf8).write(to: v2)
        try SyncServer.check(SyncServer.run(["store", "migrate", upgraded, "--model", v2.path]))
        try SyncServer.check(SyncServer.run(["device", "sync", upgraded]))
        try SyncServer.check(SyncServer.run(["store", "insert", upgraded, "Album", "name=Trip"]))
        try SyncServer.check(SyncServer.run(["store", "update", upgraded, "Post", "--predicate", "title == 'shared'", "mood=2"]))
        try SyncServer.check(SyncServer.run(["device", "sync", upgraded]))
        try SyncServer.check(SyncServer.run(["device", "sync", old]))
        #expect(try Self.fetch(old).first?["views"] as? Int == 7)
        let status = try SyncServer.run(["device", "status", old, "--json"])
        try SyncServer.check(status)
        let stores = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [[String: Any]])
        let kept = try #require(stores.first?["quarantined"] as? [[String: Any]])
        #expect(kept.contains { $0["recordType"] as? String == "CD_Album" && ($0["reason"] as? String)?.contains("Album") == true }, "\(kept)")
        // The old device upgrades: what it kept arrives.
        try SyncServer.check(SyncServer.run(["store", "migrate", old, "--model", v2.path]))
        try SyncServer.check(SyncServer.run(["device", "sync", old]))
        #expect(try Self.fetch(old).first?["mood"] as? Int == 2)
        #expect(try Self.fetch(old, "Album").first?["name"] as? String == "Trip")
        let after = try SyncServer.run(["device", "status", old, "--json"])
        let afterStores = try #require(try JSONSerialization.jsonObject(with: Data(after.output.utf8)) as? [[String: Any]])
        #expect((afterStores.first?["quarantined"] as? [Any])?.isEmpty == true, "\(after.output)")
    }
}
