import Foundation
import Logging
@testable import NimbusServer
import NimbusWire
import PostgresNIO
import Testing

/// Change fetches and lookups read a streaming replica only when it has caught up
/// (decision server-0027). Each test starts its own primary and `pg_basebackup -R` standby.
@Suite("PostgreSQL: reads from a streaming replica", .stopsServers, .enabled(if: PostgresHarness.enabled))
struct PostgresReplicaTests {
    @Test("fetches and lookups read the replica once it has caught up, the primary when it is behind the token or what the process knows")
    func readsReplicaOnlyWhenCaughtUp() async throws {
        let (primary, replica) = try PostgresHarness.primaryWithReplica()
        defer {
            replica.destroy()
            primary.destroy()
        }
        let url = try primary.createDatabase()
        let replicaURL = replica.url(database: PostgresHarness.databaseName(url))
        let serverA = try await TestServer.start(.postgres, postgresURL: url) { $0.postgresReplicaURL = replicaURL }
        let storageA = try #require(serverA.storage as? PostgresStorage)
        let replicaA = try #require(storageA.replica)
        let alice = try await serverA.user("alice")
        try await alice.createZone("trip")
        try await alice.save("trip", (1...3).map { Make.record("r\($0)", ["n": .int64(Int64($0))]) })
        try await Self.waitForReplay(storageA)

        // Caught up: the replica answers.
        var before = replicaA.readCounts.reads
        let first = try await alice.fetchChanges("trip")
        #expect(first.records.count == 3)
        #expect(try await alice.lookup("trip", ["r1"]).results[0].record != nil)
        #expect(replicaA.readCounts.reads == before + 2, "\(replicaA.readCounts)")

        // The replica stops replaying; a write through A is not read from it by A.
        try await Self.replica(storageA, "SELECT pg_wal_replay_pause()")
        try await alice.save("trip", [Make.record("r4", ["n": .int64(4)])])
        before = replicaA.readCounts.fallbacks
        let second = try await alice.fetchChanges("trip", since: first.changeToken)
        #expect(second.records.map(\.recordName) == ["r4"])
        #expect(try await alice.lookup("trip", ["r4"]).results[0].record != nil)
        #expect(replicaA.readCounts.fallbacks == before + 2, "\(replicaA.readCounts)")

        // Server B started after the write has heard nothing of it: its token rule alone
        // keeps a client holding the newest token from reading the replica (which would answer
        // `changeTokenExpired`: the replica's zone is behind the token).
        let serverB = try await TestServer.start(.postgres, postgresURL: url) { $0.postgresReplicaURL = replicaURL }
        let replicaB = try #require((serverB.storage as? PostgresStorage)?.replica)
        let aliceB = try await serverB.user("alice", device: "b")
        let reply = try await aliceB.changes("trip", since: second.changeToken)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(try reply.decode(FetchZoneChangesResponse.self).records.isEmpty)
        #expect(try await aliceB.lookup("trip", ["r4"]).results[0].record != nil, "a lookup with no known position reads the primary")
        #expect(replicaB.readCounts.reads == 0)

        // Replay resumes: B reads the replica again.
        try await Self.replica(storageA, "SELECT pg_wal_replay_resume()")
        try await Self.waitForReplay(storageA)
        let third = try await aliceB.fetchChanges("trip", since: first.changeToken)
        #expect(third.records.map(\.recordName) == ["r4"])
        #expect(replicaB.readCounts.reads == 1)

        // The replica dies: reads and writes go on through the primary.
        try replica.stop()
        try await alice.save("trip", [Make.record("r5", ["n": .int64(5)])])
        #expect(try await alice.fetchChanges("trip", since: second.changeToken).records.map(\.recordName) == ["r5"])
        #expect(try await aliceB.fetchChanges("trip", since: third.changeToken).records.map(\.recordName) == ["r5"])
    }

    @Test("a replica without a primary is refused with a typed error")
    func replicaNeedsPrimary() throws {
        var configuration = ServerConfiguration(dataDirectory: NSTemporaryDirectory() + "nimbus-replica-only-\(UUID().uuidString)")
        configuration.postgresReplicaURL = "postgres://postgres@127.0.0.1:5432/nimbus"
        #expect {
            _ = try StorageFactory.make(configuration: configuration, logger: Logger(label: "nimbus.test"))
        } throws: { ($0 as? WireError)?.code == .invalidArguments }
        #expect(!FileManager.default.fileExists(atPath: configuration.dataDirectory), "nothing was created")
    }

    /// Runs a statement on the replica.
    static func replica(_ storage: PostgresStorage, _ sql: String) async throws {
        let client = try #require(storage.replica).client
        _ = try await storage.connection(client: client) { connection in
            try await connection.run(PostgresQuery(unsafeSQL: sql), logger: storage.logger)
        }
    }

    /// Waits until every standby has replayed the primary's WAL as it is now.
    static func waitForReplay(_ storage: PostgresStorage) async throws {
        let target = try await storage.query("SELECT pg_current_wal_lsn()::text", logger: storage.logger).collect()
            .map { try $0.decode(String.self) }[0]
        for _ in 0..<200 {
            let rows = try await storage.query(
                "SELECT COALESCE(bool_and(replay_lsn >= \(target)::pg_lsn), false) FROM pg_stat_replication", logger: storage.logger)
            if try rows.collect().map({ try $0.decode(Bool.self) }) == [true] { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw HarnessError("the replica did not replay the primary's WAL in 10 s")
    }
}
