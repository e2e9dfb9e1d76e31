import Foundation
@testable import NimbusServer
import PostgresNIO
import Testing

/// The plans PostgreSQL chooses for the statements of the modify path while its statistics lag.
@Suite("PostgreSQL lookup plans", .stopsServers, .enabled(if: PostgresHarness.enabled))
struct PostgresLookupPlanTests {
    @Test("a batch's record lookup reads only the rows it asks for, even in a zone the statistics have never seen")
    func lookupReadsOnlyItsRows() async throws {
        let server = try await TestServer.start(.postgres)
        let storage = try #require(server.storage as? PostgresStorage)
        // Statistics that know zone 1 only (as after an ANALYZE early in the life of the table),
        // then zone 2 grows past them. Autovacuum is off so it cannot refresh them mid-test
        // (a storage parameter of each partition: migration 7 partitions `records` by zone).
        let partitions = (0..<PostgresSchema.zonePartitionCount).map { "ALTER TABLE records_p\($0) SET (autovacuum_enabled = false)" }
        for statement in partitions + [
            "INSERT INTO records SELECT 1, 'a' || i, 'Post', '{}', 'x', i, 0, 'd', 0, 'd', NULL, NULL, 10 FROM generate_series(1, 5000) i",
            "ANALYZE records",
            "INSERT INTO records SELECT 2, 'b' || i, 'Post', '{}', 'x', i, 0, 'd', 0, 'd', NULL, NULL, 10 FROM generate_series(1, 20000) i",
        ] {
            try await storage.query(PostgresQuery(unsafeSQL: statement), logger: storage.logger)
        }
        let names = (1...400).map { "b\($0 * 37)" }
        let lookup = try await Self.explain(storage, PostgresStorage.recordsQuery(zoneRowID: 2, names: names))
        // The partition's copy of `records_pkey` (`records_pN_pkey`) and of `records_changes`
        // (`records_pN_zone_id_seq_idx`), in the one partition of zone 2.
        #expect(lookup.contains("_pkey") && !lookup.contains("Append"), "\(lookup)")
        #expect(!lookup.contains("Rows Removed by Filter"), "the lookup scanned the zone:\n\(lookup)")
        #expect(try await PostgresStorage.records(storage, zoneRowID: 2, names: names + ["missing"]).count == 400)
        let changes = try await Self.explain(storage, PostgresStorage.zoneChangesQuery(zoneRowID: 2, afterSeq: 19_000, limit: 500))
        #expect(changes.contains("_zone_id_seq_idx") && !changes.contains("Append"), "\(changes)")
        #expect(!changes.contains("Rows Removed by Filter"), "\(changes)")
    }

    /// The text of `EXPLAIN (ANALYZE)` for a statement, as the server would send it.
    static func explain(_ storage: PostgresStorage, _ query: PostgresQuery) async throws -> String {
        let rows = try await storage.query(
            PostgresQuery(unsafeSQL: "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) " + query.sql, binds: query.binds), logger: storage.logger)
        var lines: [String] = []
        for try await line in rows.decode(String.self) { lines.append(line) }
        return lines.joined(separator: "\n")
    }
}

extension PostgresStorage {
    /// ``records(_:zoneRowID:names:logger:)`` on a pooled connection.
    static func records(_ storage: PostgresStorage, zoneRowID: Int64, names: [String]) async throws -> [String: StoredRecord] {
        try await storage.connection { connection in
            try await records(connection, zoneRowID: zoneRowID, names: names, logger: storage.logger)
        }
    }
}
