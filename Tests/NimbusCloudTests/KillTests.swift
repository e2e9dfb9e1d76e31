import Foundation
import GRDB
import Nimbus
import NimbusCloud
import NimbusWire
import Testing

@Suite("Devices killed mid-sync", .serialized)
struct KillTests {
    /// Starts `nimbus device sync` and kills it with SIGKILL after `delay`; returns whether it
    /// was still running (killed mid-sync) or had finished.
    static func killSync(_ directory: String, after delay: Duration) async throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try SyncServer.executable)
        process.arguments = ["device", "sync", directory]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try await Task.sleep(for: delay)
        let running = process.isRunning
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return running
    }

    @Test("devices killed with SIGKILL during export and import lose nothing and duplicate nothing")
    func killedMidSync() async throws {
        let server = try await SyncServer()
        defer { server.stop() }
        let modelURL = try #require(Bundle.module.url(forResource: "Posts", withExtension: "json", subdirectory: "Fixtures"))
        let a = server.folder.url.appendingPathComponent("a").path
        let b = server.folder.url.appendingPathComponent("b").path
        for (directory, token) in [(a, server.tokens[0]), (b, server.tokens[1])] {
            try SyncServer.check(SyncServer.run(["device", "init", directory, "--server", server.url.absoluteString,
                                                 "--token", token, "--model", modelURL.path]))
        }
        // 3,000 posts saved on A with history, as the app would.
        let count = 3000
        do {
            let container = PersistentContainer(name: "a", managedObjectModel: try ManagedObjectModel(contentsOf: modelURL))
            var description = PersistentStoreDescription(url: URL(fileURLWithPath: try SyncServer.storePath(a)))
            description.persistentHistoryTracking = true
            container.persistentStoreDescriptions = [description]
            try await container.loadPersistentStores()
            let context = container.newBackgroundContext()
            try context.performAndWait {
                for index in 0..<count {
                    let post = try context.insertNewObject(forEntityName: "Post")
                    post.setValue("post \(index)", forKey: "title")
                }
                try context.save()
            }
            for store in container.persistentStoreCoordinator.persistentStores { try container.persistentStoreCoordinator.removePersistentStore(store) }
        }
        // Kill each device's sync at deterministic instants, then let it finish.
        var generator = SeededGenerator(seed: 42)
        var killedMidway = 0
        for directory in [a, b] {
            for _ in 0..<8 {
                if try await Self.killSync(directory, after: .milliseconds(Int.random(in: 40...400, using: &generator))) { killedMidway += 1 }
            }
            try SyncServer.check(SyncServer.run(["device", "sync", directory]))
        }
        #expect(killedMidway > 0)
        // Exactly one record per post on the server, and every post once on B.
        let transport = HTTPTransport(options: CloudContainerOptions(serverURL: server.url, containerIdentifier: "nimbus", token: server.tokens[1]))
        var names = Set<String>()
        var token: ChangeToken?
        var more = true
        while more {
            let page = try await transport.fetchChanges(FetchZoneChangesRequest(since: token, limit: 1000), in: ZoneID(zoneName: CloudContainerOptions.defaultZoneName))
            names.formUnion(page.records.map(\.recordName))
            token = page.changeToken
            more = page.moreComing
        }
        #expect(names.count == count)
        for directory in [a, b] {
            let file = try DatabaseFile(URL(fileURLWithPath: try SyncServer.storePath(directory)))
            #expect(try file.int("SELECT count(*) FROM ZPOST") == count)
            #expect(try file.int("SELECT count(DISTINCT ZTITLE) FROM ZPOST") == count)
            #expect(try file.string("PRAGMA integrity_check") == "ok")
            #expect(try file.int("SELECT count(*) FROM ANIMBUSCLOUDPENDING") == 0)
        }
    }
}

/// A deterministic random generator (SplitMix64), so that a failing schedule can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
