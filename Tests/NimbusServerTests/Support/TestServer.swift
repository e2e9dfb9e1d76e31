import Foundation
import Logging
import NIOConcurrencyHelpers
@testable import NimbusServer
import NimbusWire

/// A real Nimbus server on a loopback port, in this process, over a fresh SQLite folder or
/// a fresh PostgreSQL database.
final class TestServer: Sendable {
    let port: Int
    let dataDirectory: String
    let services: ServerServices
    private let task: Task<Void, any Error>

    var baseURL: String { "http://127.0.0.1:\(port)" }
    var storage: any SyncStorage { services.storage }

    private init(port: Int, dataDirectory: String, services: ServerServices, task: Task<Void, any Error>) {
        self.port = port
        self.dataDirectory = dataDirectory
        self.services = services
        self.task = task
    }

    /// Starts a server and waits until it accepts connections. The test (or its suite) must
    /// carry the ``ServerTeardownTrait`` (`.stopsServers`), which stops the server, awaited,
    /// when the test ends.
    static func start(
        _ backend: Backend,
        clock: ServerClock = .system,
        postgresURL: String? = nil,
        dataDirectory: String? = nil,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        guard let registry = ServerRegistry.current else {
            throw HarnessError("TestServer.start needs the .stopsServers trait on the test or its suite, so the server is stopped with an awaited teardown.")
        }
        let directory = dataDirectory ?? NSTemporaryDirectory() + "nimbus-test-\(UUID().uuidString)"
        var configuration = ServerConfiguration(dataDirectory: directory, port: 0)
        configuration.maintenanceIntervalSeconds = 0
        if backend == .postgres {
            configuration.postgresURL = try postgresURL ?? PostgresHarness.cluster().createDatabase()
        }
        configure(&configuration)
        var logger = Logger(label: "nimbus.test")
        logger.logLevel = ProcessInfo.processInfo.environment["NIMBUS_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = try await NimbusServerApp.make(configuration: configuration, clock: clock, logger: logger) { port in
            continuation.yield(port)
        }
        let task = Task {
            // A server that fails before it listens ends the stream, so the wait below ends
            // with its error instead of waiting forever.
            defer { continuation.finish() }
            try await app.runWithoutSignals()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            let reason: String
            do {
                try await task.value
                reason = "it stopped without listening"
            } catch {
                reason = "\(error)"
            }
            throw HarnessError("the server did not start: \(reason)")
        }
        let server = TestServer(port: port, dataDirectory: directory, services: app.services, task: task)
        registry.register(server)
        return server
    }

    /// Stops the server.
    func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    /// Adds a user and returns a client holding a token for one of their devices.
    func user(_ name: String, device: String? = nil, quotaBytes: Int64? = nil, container: String = "app") async throws -> TestClient {
        let admin = AccountAdmin(storage: storage, clock: services.clock)
        if try await storage.user(named: name) == nil {
            _ = try await admin.addUser(name: name, quotaBytes: quotaBytes)
        }
        let token = try await admin.createToken(userName: name, device: device ?? "\(name)-device")
        return TestClient(baseURL: baseURL, token: token, container: container)
    }
}
