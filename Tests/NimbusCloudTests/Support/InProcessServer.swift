import Foundation
import Logging
import NimbusCloud
import NimbusServer
import NimbusTesting

/// A sync server in this process on a loopback port (SQLite), for tests that act on the
/// server directly: purging tombstones now, as its maintenance does once they pass the
/// tombstone horizon.
final class InProcessServer: Sendable {
    let url: URL
    let tokens: [String]
    private let app: NimbusServerApp
    private let task: Task<Void, any Error>
    private let folder: TemporaryDirectory

    private init(url: URL, tokens: [String], app: NimbusServerApp, task: Task<Void, any Error>, folder: TemporaryDirectory) {
        self.url = url
        self.tokens = tokens
        self.app = app
        self.task = task
        self.folder = folder
    }

    /// Starts a server with one user and a token for each of `devices` devices.
    static func start(devices: Int) async throws -> InProcessServer {
        let folder = try TemporaryDirectory()
        var configuration = ServerConfiguration(dataDirectory: folder.url.appendingPathComponent("server").path, port: 0)
        configuration.host = "127.0.0.1"
        configuration.maintenanceIntervalSeconds = 0
        var logger = Logger(label: "nimbus.test")
        logger.logLevel = .critical
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = try await NimbusServerApp.make(configuration: configuration, logger: logger) { port in continuation.yield(port) }
        let task = Task {
            defer { continuation.finish() }
            try await app.runWithoutSignals()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await task.value
            throw TestFailure("the in-process server stopped without listening")
        }
        let admin = AccountAdmin(storage: app.services.storage)
        _ = try await admin.addUser(name: "alice")
        var tokens: [String] = []
        for index in 0..<devices { tokens.append(try await admin.createToken(userName: "alice", device: "device\(index)")) }
        return InProcessServer(url: URL(string: "http://127.0.0.1:\(port)")!, tokens: tokens, app: app, task: task, folder: folder)
    }

    /// Adds a user and returns a token for one device of theirs.
    func addUser(_ name: String) async throws -> String {
        let admin = AccountAdmin(storage: app.services.storage)
        _ = try await admin.addUser(name: name)
        return try await admin.createToken(userName: name, device: "\(name)-device")
    }

    /// Purges every tombstone now (as if the horizon had passed): tokens from before get
    /// `changeTokenExpired`. Returns how many went.
    @discardableResult
    func purgeTombstones() async throws -> Int {
        try await app.services.storage.purgeTombstones(olderThan: app.services.clock.now() + 1)
    }

    /// How many requests the server answered with `status`, from its metrics.
    func responses(status: Int) -> Int {
        app.services.metrics.render().split(separator: "\n").reduce(0) { total, line in
            guard line.hasPrefix("nimbus_http_requests_total{"), line.contains("status=\"\(status)\""),
                  let count = line.split(separator: " ").last.flatMap({ Double($0) }) else { return total }
            return total + Int(count)
        }
    }

    /// Creates zones in alice's private database of container `app`, straight in storage.
    func createZones(_ names: [String]) async throws {
        let storage = app.services.storage
        guard let alice = try await storage.user(named: "alice") else { throw TestFailure("no user alice") }
        let database = DatabaseKey(container: "app", scope: .private, ownerID: alice.id)
        for name in names { _ = try await storage.createZone(ZoneKey(database: database, zoneName: name), now: 1) }
    }

    /// Stops the server, awaited.
    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}
