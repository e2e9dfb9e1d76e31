import NIOConcurrencyHelpers
import Testing

/// Stops every ``TestServer`` a test started, awaited, when the test ends (pass, fail or
/// throw), so no server outlives its test and no teardown is fire-and-forget.
///
/// For example:
/// ```swift
/// @Suite("Assets", .stopsServers)
/// struct AssetTests { … let server = try await TestServer.start(.sqlite) … }
/// ```
struct ServerTeardownTrait: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // A suite's own scope holds no servers; each test (and each case) gets a registry.
        guard !test.isSuite else { return try await function() }
        let registry = ServerRegistry()
        do {
            try await ServerRegistry.$current.withValue(registry) { try await function() }
        } catch {
            await registry.stopAll()
            throw error
        }
        await registry.stopAll()
    }
}

extension Trait where Self == ServerTeardownTrait {
    /// Stops the test's servers with an awaited teardown.
    static var stopsServers: Self { ServerTeardownTrait() }
}

/// The servers started in the current test.
final class ServerRegistry: Sendable {
    @TaskLocal static var current: ServerRegistry?

    private let servers = NIOLockedValueBox<[TestServer]>([])

    func register(_ server: TestServer) {
        servers.withLockedValue { $0.append(server) }
    }

    /// Stops every registered server, the last started first.
    func stopAll() async {
        let all = servers.withLockedValue { servers in
            defer { servers.removeAll() }
            return servers
        }
        for server in all.reversed() { await server.stop() }
    }
}
