import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

/// Cross-process push (PostgreSQL LISTEN/NOTIFY) after the listening connection is lost or
/// goes silent. Each test has its own cluster, which it restarts or disturbs, and deletes.
@Suite("Push across processes recovers from PostgreSQL faults", .stopsServers, .serialized, .timeLimit(.minutes(2)),
       .enabled(if: PostgresHarness.enabled))
struct PushRecoveryTests {
    /// Two servers on one database, heartbeats every 100 ms: a device of alice's listens on
    /// the second, alice writes through the first.
    struct Pair {
        let cluster: PostgresHarness.Cluster
        let first: TestServer
        let second: TestServer
        let phone: TestClient
        let push: PushListener

        /// Starts the pair, runs `body`, and always stops both servers and deletes the cluster.
        static func run(_ body: (Pair) async throws -> Void) async throws {
            let cluster = try PostgresHarness.privateCluster()
            var servers: [TestServer] = []
            var push: PushListener?
            do {
                let url = try cluster.createDatabase()
                let fast: (inout ServerConfiguration) -> Void = {
                    $0.postgresHeartbeatInterval = .milliseconds(100)
                    $0.rateLimitBurst = 10_000
                }
                let first = try await TestServer.start(.postgres, postgresURL: url, configure: fast)
                servers.append(first)
                let second = try await TestServer.start(.postgres, postgresURL: url, configure: fast)
                servers.append(second)
                let phone = try await first.user("alice", device: "phone")
                let laptop = try await second.user("alice", device: "laptop")
                try await phone.createZone("notes")
                let listener = PushListener.connect(url: PushTests.pushURL(second), token: laptop.token!)
                push = listener
                #expect(await listener.next(within: .seconds(10))?.kind == .hello)
                try await body(Pair(cluster: cluster, first: first, second: second, phone: phone, push: listener))
            } catch {
                push?.close()
                for server in servers { await server.stop() }
                cluster.destroy()
                throw error
            }
            push?.close()
            for server in servers { await server.stop() }
            cluster.destroy()
        }

        /// Writes through the first server until the device on the second hears one of the
        /// writes, or `deadline` passes. Returns how long that took, or `nil`.
        ///
        /// A change committed while the second server's listener is reconnecting is not
        /// pushed, so a single write could be missed even by a healthy listener: the test
        /// writes again every half second.
        func writeUntilHeard(within deadline: Duration) async throws -> Duration? {
            let start = ContinuousClock.now
            var written = Set<ChangeToken>()
            var attempt = 0
            while ContinuousClock.now - start < deadline {
                attempt += 1
                let reply = try await phone.modify(
                    "notes", ModifyRecordsRequest(saves: [Make.record("r\(attempt)", ["n": .int64(Int64(attempt))])]))
                if reply.status == 200 {
                    written.insert(try reply.decode(ModifyRecordsResponse.self).changeToken)
                }
                let waitUntil = ContinuousClock.now + .milliseconds(500)
                while ContinuousClock.now < waitUntil, let message = await push.next(within: waitUntil - ContinuousClock.now) {
                    // Only real changes reach the device: no heartbeat ever arrives as a message.
                    #expect(message.kind == .zoneChanged && message.zoneID == ZoneID(zoneName: "notes"))
                    if let token = message.zoneChangeToken, written.contains(token) { return ContinuousClock.now - start }
                }
            }
            return nil
        }
    }

    @Test("after PostgreSQL restarts, a device on one server hears a change written through another")
    func restart() async throws {
        try await Pair.run { pair in
            #expect(try await pair.writeUntilHeard(within: .seconds(10)) != nil)
            try pair.cluster.stop()
            try pair.cluster.start()
            let recovered = try await pair.writeUntilHeard(within: .seconds(30))
            print("push across processes recovered \(recovered.map { "\($0)" } ?? "never") after the PostgreSQL restart")
            #expect(recovered != nil, "no change written through the first server reached the device on the second")
        }
    }

    @Test("a listening connection that goes silent without closing is replaced, and push resumes")
    func silentConnection() async throws {
        try await Pair.run { pair in
            #expect(try await pair.writeUntilHeard(within: .seconds(10)) != nil)
            // Freeze the PostgreSQL backends serving the listeners: their sockets stay open, but
            // they deliver nothing more, as after a network partition or a LISTEN that never returned.
            let frozen = try await Self.listenerBackends(pair.first)
            #expect(!frozen.isEmpty)
            for pid in frozen { kill(pid, SIGSTOP) }
            defer { for pid in frozen { kill(pid, SIGCONT) } }
            let recovered = try await pair.writeUntilHeard(within: .seconds(20))
            print("push across processes recovered \(recovered.map { "\($0)" } ?? "never") after the listeners' backends froze")
            #expect(recovered != nil, "no change written through the first server reached the device on the second")
        }
    }

    /// The process ids of the backends whose last statement was a `LISTEN` (the listeners').
    static func listenerBackends(_ server: TestServer) async throws -> [pid_t] {
        let storage = try #require(server.storage as? PostgresStorage)
        let rows = try await storage.query(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'", logger: storage.logger)
        var pids: [pid_t] = []
        for try await pid in rows.decode(Int32.self) { pids.append(pid) }
        return pids
    }
}
