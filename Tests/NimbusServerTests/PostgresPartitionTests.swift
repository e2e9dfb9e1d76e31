import Foundation
import Logging
@testable import NimbusServer
import NimbusWire
import PostgresNIO
import Testing

/// Migration 7: `records` and `asset_refs` hash-partitioned by zone (decision server-0026).
@Suite("PostgreSQL: zone partitions", .stopsServers, .enabled(if: PostgresHarness.enabled))
struct PostgresPartitionTests {
    @Test("a database of schema 6 with records, tombstones and asset references upgrades to partitions and keeps every row")
    func upgradeKeepsRows() async throws {
        let cluster = try PostgresHarness.cluster()
        let url = try cluster.createDatabase()
        try Self.createSchema(upTo: 6, cluster: cluster, url: url)
        // Rows written by the storage's own code while the schema is 6.
        let checksum = String(repeating: "ab", count: 32)
        let zone = try await Self.withUnmigratedStorage(url) { storage -> ZoneState in
            let alice = try await storage.createUser(name: "alice", quotaBytes: nil, now: 1)
            let key = ZoneKey(database: DatabaseKey(container: "app", scope: .private, ownerID: alice.id), zoneName: "trip")
            _ = try await storage.createZone(key, now: 1)
            let context = ModifyContext(device: "d1", now: 2, quotaUserID: alice.id, defaultQuotaBytes: 1 << 30)
            let saves = (1...40).map { Make.record("r\($0)", ["n": .int64(Int64($0))]) }
                + [Make.record("photo", ["image": .asset(AssetReference(checksum: checksum, size: 10))])]
            _ = try await storage.modifyRecords(key, ModifyRecordsRequest(saves: saves, savePolicy: .changedKeys), context: context)
            let deleted = try await storage.modifyRecords(
                key, ModifyRecordsRequest(deletions: [RecordDeletion(recordName: "r1", stamp: Make.stamp(3))]), context: context)
            return deleted.zone
        }
        let server = try await TestServer.start(.postgres, postgresURL: url)
        let storage = try #require(server.storage as? PostgresStorage)
        for table in ["records", "asset_refs"] {
            let kinds = try await storage.query("SELECT relkind::text FROM pg_class WHERE relname = \(table)", logger: storage.logger)
            #expect(try kinds.collect().map { try $0.decode(String.self) } == ["p"], "\(table) is partitioned")
            let parts = try await storage.query(
                "SELECT COUNT(*)::int8 FROM pg_inherits WHERE inhparent = \(table)::regclass", logger: storage.logger)
            #expect(try parts.collect().map { try $0.decode(Int64.self) } == [Int64(PostgresSchema.zonePartitionCount)])
        }
        let counts = try await storage.query(
            "SELECT (SELECT COUNT(*) FROM records)::int8, (SELECT COUNT(*) FROM asset_refs)::int8", logger: storage.logger)
        let (records, references) = try #require(try counts.collect().map { try $0.decode((Int64, Int64).self) }.first)
        #expect(records == 41 && references == 1)

        let alice = try await server.user("alice")
        let all = try await alice.fetchChanges("trip")
        #expect(all.records.count == 40 && all.deletions.map(\.recordName) == ["r1"])
        #expect(try await alice.lookup("trip", ["photo"]).results[0].record?.fields["image"]?.value
            == .asset(AssetReference(checksum: checksum, size: 10)))
        // A token issued before the upgrade still reads on from where it was.
        let token = ChangeTokenCodec.zoneToken(zoneIncarnation: zone.incarnation, seq: zone.seq)
        #expect(try await alice.fetchChanges("trip", since: token).records.isEmpty)
        try await alice.save("trip", [Make.record("r2", ["n": .int64(200)], time: 5)])
        #expect(try await alice.fetchChanges("trip", since: token).records.map(\.recordName) == ["r2"])
        #expect(try await storage.mayReadAsset(container: "app", checksum: checksum, userID: 1))
    }

    /// Runs migrations 1 through `version` with `psql`, as an older server would have.
    static func createSchema(upTo version: Int, cluster: PostgresHarness.Cluster, url: String) throws {
        var sql = "CREATE TABLE nimbus_schema(version INT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now());\n"
        for migration in PostgresSchema.migrations where migration.version <= version {
            sql += migration.statements.joined(separator: ";\n") + ";\nINSERT INTO nimbus_schema(version) VALUES (\(migration.version));\n"
        }
        let file = NSTemporaryDirectory() + "nimbus-pg-v\(version)-\(UUID().uuidString).sql"
        try sql.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        try PostgresHarness.run(PostgresHarness.binDirectory + "/psql", [
            "-h", "127.0.0.1", "-p", String(cluster.port), "-U", "postgres", "-d", String(url.split(separator: "/").last ?? ""),
            "-v", "ON_ERROR_STOP=1", "-q", "-f", file,
        ])
    }

    /// Runs `body` with a storage on `url` whose schema is left as it is.
    static func withUnmigratedStorage<T: Sendable>(_ url: String, _ body: @escaping @Sendable (PostgresStorage) async throws -> T) async throws -> T {
        let storage = try PostgresStorage(url: url, logger: Logger(label: "nimbus.test.v6"))
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                await storage.client.run()
                return nil
            }
            group.addTask { try await body(storage) }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let result { return result }
            }
            throw CancellationError()
        }
    }
}
