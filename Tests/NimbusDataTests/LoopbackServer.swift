import Foundation
import Logging
import NimbusCloud
import NimbusServer
import NimbusTesting

struct ServerFailure: Error { let message: String }

/// A sync server in this process on a loopback port (SQLite storage), with one user and a
/// token per device (as NimbusCloudTests' InProcessServer).
final class LoopbackServer: Sendable {
    let url: URL
    let tokens: [String]
    private let task: Task<Void, any Error>
    private let folder: TemporaryDirectory

    private init(url: URL, tokens: [String], task: Task<Void, any Error>, folder: TemporaryDirectory) {
        self.url = url
        self.tokens = tokens
        self.task = task
        self.folder = folder
    }

    static func start(devices: Int) async throws -> LoopbackServer {
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
            throw ServerFailure(message: "the in-process server stopped without listening")
        }
        let admin = AccountAdmin(storage: app.services.storage)
        _ = try await admin.addUser(name: "alice")
        var tokens: [String] = []
        for index in 0..<devices { tokens.append(try await admin.createToken(userName: "alice", device: "device\(index)")) }
        return LoopbackServer(url: URL(string: "http://127.0.0.1:\(port)")!, tokens: tokens, task: task, folder: folder)
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}
