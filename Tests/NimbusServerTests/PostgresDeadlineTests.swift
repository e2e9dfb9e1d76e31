import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

@Suite("PostgreSQL: how long an operation may run", .stopsServers)
struct PostgresDeadlineTests {
    @Test("a request is cut short at the operation deadline; a schema migration runs as long as it takes",
          .enabled(if: PostgresHarness.enabled))
    func migrationsOutliveTheRequestDeadline() async throws {
        let server = try await TestServer.start(.postgres)
        let storage = try #require(server.storage as? PostgresStorage)
        let deadline = Double(PostgresStorage.operationDeadline.components.seconds)

        // A statement twice as long as the deadline: the request gives up at the deadline
        // (with room for a loaded machine), long before the statement would end.
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: WireError.self) {
            try await storage.transaction { connection in
                try await connection.run("SELECT pg_sleep(\(deadline * 2))", logger: storage.logger)
            }
        }
        #expect(error?.code == .serviceUnavailable)
        #expect(clock.now - start < PostgresStorage.operationDeadline * 1.5, "the request waited past its deadline")

        // A migration's statement that takes longer than a request may commits.
        try await storage.transaction(deadlines: .migration) { connection in
            try await connection.run("SELECT pg_sleep(\(deadline + 1))", logger: storage.logger)
            try await connection.run("CREATE TABLE slow_migration_marker(id INT)", logger: storage.logger)
        }
        try await storage.query("SELECT count(*) FROM slow_migration_marker", logger: storage.logger)
    }
}
