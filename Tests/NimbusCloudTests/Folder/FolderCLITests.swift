import Foundation
import NimbusTesting
import Testing

@Suite("nimbus device commands through a shared folder", .serialized)
struct FolderCLITests {
    @Test("device init --folder, store edits, device sync and device status converge two devices without a server")
    func devices() throws {
        let root = try TemporaryDirectory()
        let shared = root.url.appendingPathComponent("shared").path
        let model = try #require(Bundle.module.url(forResource: "Posts", withExtension: "json", subdirectory: "Fixtures"))
        let (a, b) = (root.url.appendingPathComponent("a").path, root.url.appendingPathComponent("b").path)
        for directory in [a, b] {
            try SyncServer.check(SyncServer.run(["device", "init", directory, "--folder", shared, "--model", model.path, "--container", "cli"]))
        }
        try SyncServer.check(SyncServer.run(["store", "insert", a, "Post", "title=Hello", "views=1"]))
        #expect(try SyncServer.run(["device", "status", a, "--json"]).output.contains("\"pendingUploads\" : 1"))
        try SyncServer.check(SyncServer.run(["device", "sync", a]))
        #expect(try SyncServer.run(["device", "status", a, "--json"]).output.contains("\"pendingUploads\" : 0"))
        try SyncServer.check(SyncServer.run(["device", "sync", b]))
        try SyncServer.check(SyncServer.run(["store", "update", b, "Post", "--predicate", "title == 'Hello'", "views=5"]))
        try SyncServer.check(SyncServer.run(["device", "sync", b]))
        try SyncServer.check(SyncServer.run(["device", "sync", a]))
        let fetched = try SyncServer.run(["store", "fetch", a, "Post", "--json"])
        try SyncServer.check(fetched)
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(fetched.output.utf8)) as? [[String: Any]])
        #expect(objects.count == 1)
        #expect(objects.first?["views"] as? Int == 5)
        // No server involved: the folder holds the logs of both devices.
        let peers = try FileManager.default.contentsOfDirectory(atPath: shared + "/peers")
        #expect(peers.count == 2)
        // --folder and --server together are refused, and nothing is made.
        let c = root.url.appendingPathComponent("c").path
        let refused = try SyncServer.run(["device", "init", c, "--folder", shared, "--server", "http://127.0.0.1:1", "--model", model.path])
        #expect(refused.status != 0)
        #expect(!FileManager.default.fileExists(atPath: c))
    }

    @Test("a device whose shared folder is missing exits 75 (retry later) and keeps its edit")
    func missingFolder() throws {
        let root = try TemporaryDirectory()
        let shared = root.url.appendingPathComponent("shared")
        let model = try #require(Bundle.module.url(forResource: "Posts", withExtension: "json", subdirectory: "Fixtures"))
        let a = root.url.appendingPathComponent("a").path
        try SyncServer.check(SyncServer.run(["device", "init", a, "--folder", shared.path, "--model", model.path]))
        try SyncServer.check(SyncServer.run(["store", "insert", a, "Post", "title=kept"]))
        try FileManager.default.removeItem(at: shared)
        let result = try SyncServer.run(["device", "sync", a])
        #expect(result.status == 75, "retry later: \(result.error)")
        #expect(try SyncServer.run(["device", "status", a, "--json"]).output.contains("\"pendingUploads\" : 1"))
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        try SyncServer.check(SyncServer.run(["device", "sync", a]))
    }

    @Test("nimbus demo --folder: two devices converge through one folder")
    func demo() throws {
        let result = try SyncServer.run(["demo", "--folder"])
        try SyncServer.check(result)
        #expect(result.output.contains("no server"))
        #expect(result.output.contains("both replicas hold the same data"))
    }
}

extension FolderCLITests {
    @Test("devices with one --folder-key-file converge; a device with another key fails its sync clearly")
    func encryptedThroughCLI() throws {
        let root = try TemporaryDirectory()
        let shared = root.url.appendingPathComponent("shared").path
        let model = try #require(Bundle.module.url(forResource: "Posts", withExtension: "json", subdirectory: "Fixtures"))
        let key = root.url.appendingPathComponent("key"), other = root.url.appendingPathComponent("other")
        try Data(String(repeating: "ab", count: 32).utf8).write(to: key)
        try Data(repeating: 7, count: 32).write(to: other)
        let (a, b, c) = (root.url.appendingPathComponent("a").path, root.url.appendingPathComponent("b").path, root.url.appendingPathComponent("c").path)
        for (directory, file) in [(a, key), (b, key), (c, other)] {
            try SyncServer.check(SyncServer.run(["device", "init", directory, "--folder", shared, "--folder-key-file", file.path, "--model", model.path]))
        }
        try SyncServer.check(SyncServer.run(["store", "insert", a, "Post", "title=Sealed"]))
        try SyncServer.check(SyncServer.run(["device", "sync", a]))
        try SyncServer.check(SyncServer.run(["device", "sync", b]))
        #expect(try SyncServer.run(["store", "fetch", b, "Post", "--json"]).output.contains("Sealed"))
        let refused = try SyncServer.run(["device", "sync", c])
        #expect(refused.status != 0)
        #expect(refused.error.contains("does not decrypt"))
        #expect(!(try SyncServer.run(["store", "fetch", c, "Post", "--json"]).output.contains("Sealed")))
        // A key file that holds no key is refused at init.
        let bad = root.url.appendingPathComponent("bad")
        try Data("short".utf8).write(to: bad)
        let d = root.url.appendingPathComponent("d").path
        #expect(try SyncServer.run(["device", "init", d, "--folder", shared, "--folder-key-file", bad.path, "--model", model.path]).status != 0)
    }
}

extension FolderCLITests {
    @Test("through the CLI, logs out of order, in part and as conflicted copies: syncs succeed meanwhile and the devices converge")
    func faultsThroughCLI() throws {
        let root = try TemporaryDirectory()
        let (sharedA, sharedB) = (root.url.appendingPathComponent("sharedA"), root.url.appendingPathComponent("sharedB"))
        let model = try #require(Bundle.module.url(forResource: "Posts", withExtension: "json", subdirectory: "Fixtures"))
        let (a, b) = (root.url.appendingPathComponent("a").path, root.url.appendingPathComponent("b").path)
        try SyncServer.check(SyncServer.run(["device", "init", a, "--folder", sharedA.path, "--model", model.path]))
        try SyncServer.check(SyncServer.run(["device", "init", b, "--folder", sharedB.path, "--model", model.path]))
        for title in ["one", "two", "three"] {
            try SyncServer.check(SyncServer.run(["store", "insert", a, "Post", "title=\(title)"]))
            try SyncServer.check(SyncServer.run(["device", "sync", a]))
        }
        let logs = FolderCopier.files(sharedA).filter { $0.contains("/logs/") }
        #expect(logs.count == 3)
        // The third log first (with a conflicted copy of it), the second in part.
        try FolderCopier.copy(from: sharedA, to: sharedB) { $0 == logs[2] || !$0.contains("/logs/") }
        let third = sharedB.appendingPathComponent(logs[2])
        try FileManager.default.copyItem(at: third, to: URL(fileURLWithPath: third.path.replacingOccurrences(of: ".nlog", with: " (1).nlog")))
        try FolderCopier.copyPart(logs[1], from: sharedA, to: sharedB, fraction: 0.6)
        try SyncServer.check(SyncServer.run(["device", "sync", b]))
        let partial = try SyncServer.run(["store", "fetch", b, "Post", "--json"]).output
        #expect(partial.contains("three") && !partial.contains("two") && !partial.contains("one"))
        try FolderCopier.copy(from: sharedA, to: sharedB)
        try SyncServer.check(SyncServer.run(["device", "sync", b]))
        try SyncServer.check(SyncServer.run(["store", "insert", b, "Post", "title=four"]))
        try SyncServer.check(SyncServer.run(["device", "sync", b]))
        try FolderCopier.copy(from: sharedB, to: sharedA) { !$0.contains("/logs/") || $0.contains(" (1)") == false }
        try SyncServer.check(SyncServer.run(["device", "sync", a]))
        func titles(_ device: String) throws -> [String] {
            let output = try SyncServer.run(["store", "fetch", device, "Post", "--json"]).output
            let objects = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]])
            return objects.compactMap { $0["title"] as? String }.sorted()
        }
        #expect(try titles(a) == ["four", "one", "three", "two"])
        #expect(try titles(b) == ["four", "one", "three", "two"])
    }
}
