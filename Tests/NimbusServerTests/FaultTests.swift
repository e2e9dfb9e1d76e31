import Foundation
@testable import NimbusServer
import NimbusWire
import NIOConcurrencyHelpers
import Testing

@Suite("Faults: crashes and database restarts", .stopsServers, .serialized)
struct FaultTests {
    @Test("the CLI adds users and tokens, and nimbus serve starts and answers /health")
    func cliAndStartup() async throws {
        let directory = NSTemporaryDirectory() + "nimbus-cli-\(UUID().uuidString)"
        #expect(try ServerProcess.run(["users", "add", "alice", "--data-dir", directory]).hasPrefix("added user alice"))
        let token = try ServerProcess.run(["tokens", "create", "--user", "alice", "--device", "phone", "--data-dir", directory])
        #expect(token.hasPrefix("nmb_"))
        #expect(throws: (any Error).self) { try ServerProcess.run(["tokens", "create", "--user", "nobody", "--device", "x", "--data-dir", directory]) }
        let (server, startup) = try await ServerProcess.start(dataDirectory: directory)
        print("nimbus serve answered /health \(startup) after launch (debug build)")
        let client = TestClient(baseURL: "http://127.0.0.1:\(server.port)", token: token, container: "app")
        #expect(try await client.send(.GET, client.databasePath + "/zones").status == 200)
        server.terminate()
        #expect(server.process.terminationReason == .exit)
        #expect(server.process.terminationStatus == 0)
    }

    @Test("kill -9 during batches: every acknowledged record survives and no atomic batch is half applied")
    func killNine() async throws {
        let directory = NSTemporaryDirectory() + "nimbus-crash-\(UUID().uuidString)"
        _ = try ServerProcess.run(["users", "add", "alice", "--data-dir", directory])
        let token = try ServerProcess.run(["tokens", "create", "--user", "alice", "--device", "phone", "--data-dir", directory])
        let (server, _) = try await ServerProcess.start(dataDirectory: directory, extra: ["--rate-burst", "100000", "--rate-limit", "100000"])
        let client = TestClient(baseURL: "http://127.0.0.1:\(server.port)", token: token, container: "app")
        try await client.createZone("z")
        let acknowledged = NIOLockedValueBox<[String]>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for batch in 0..<10_000 {
                        let prefix = "w\(writer)-b\(batch)"
                        let records = (0..<50).map { Make.record("\(prefix)-\($0)", ["n": .int64(Int64($0))]) }
                        guard let reply = try? await client.modify("z", ModifyRecordsRequest(saves: records, atomic: true)) else { return }
                        if reply.status == 200 { acknowledged.withLockedValue { $0.append(prefix) } }
                    }
                }
            }
            group.addTask {
                while acknowledged.withLockedValue({ $0.count }) < 40 { try await Task.sleep(for: .milliseconds(1)) }
                server.kill9()
            }
            try await group.waitForAll()
        }
        let (restarted, _) = try await ServerProcess.start(dataDirectory: directory, port: server.port)
        defer { restarted.terminate() }
        var counts: [String: Int] = [:]
        var token_: ChangeToken?
        var more = true
        while more {
            let page = try await client.fetchChanges("z", since: token_, limit: 2000)
            for record in page.records {
                let prefix = record.recordName.split(separator: "-").prefix(2).joined(separator: "-")
                counts[prefix, default: 0] += 1
            }
            token_ = page.changeToken
            more = page.moreComing
        }
        let acked = acknowledged.withLockedValue { $0 }
        print("kill -9 after \(acked.count) acknowledged batches; \(counts.count) batches on disk after restart")
        #expect(acked.count >= 40)
        #expect(acked.allSatisfy { counts[$0] == 50 })
        #expect(counts.values.allSatisfy { $0 == 50 })
    }

    @Test("PostgreSQL restarted under load: clients get retryable errors, never 500, and the server reconnects",
          .enabled(if: PostgresHarness.enabled))
    func postgresRestart() async throws {
        let cluster = try PostgresHarness.privateCluster()
        defer { cluster.destroy() }
        let server = try await TestServer.start(.postgres, postgresURL: try cluster.createDatabase()) { $0.rateLimitBurst = 100_000 }
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        let statuses = NIOLockedValueBox<[Int]>([])
        let phase = NIOLockedValueBox(0)  // 0 before the stop, 1 while down, 2 after the restart
        let failuresAfterRestart = NIOLockedValueBox(0)
        let slowest = NIOLockedValueBox(Duration.zero)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<3 {
                group.addTask {
                    var batch = 0
                    while true {
                        batch += 1
                        // A request that gets no answer in 15 s counts as status 0 (a hang).
                        let request = ModifyRecordsRequest(saves: [Make.record("w\(writer)-\(batch)", ["n": .int64(1)])])
                        let start = ContinuousClock.now
                        defer { slowest.withLockedValue { $0 = max($0, ContinuousClock.now - start) } }
                        let status = await withTaskGroup(of: Int.self) { race in
                            race.addTask {
                                (try? await alice.modify("z", request))?.status ?? -1
                            }
                            race.addTask {
                                try? await Task.sleep(for: .seconds(15))
                                return 0
                            }
                            let first = await race.next() ?? 0
                            race.cancelAll()
                            return first
                        }
                        let reply = (status: status, ())
                        let done = statuses.withLockedValue { statuses -> Bool in
                            statuses.append(reply.status)
                            return phase.withLockedValue { $0 } == 2 && statuses.suffix(10).allSatisfy { $0 == 200 }
                        }
                        if done { return }
                        if phase.withLockedValue({ $0 }) == 2 && reply.status != 200 {
                            let failures = failuresAfterRestart.withLockedValue { $0 += 1; return $0 }
                            if failures > 200 { throw HarnessError("the server did not recover after the restart") }
                        }
                    }
                }
            }
            group.addTask {
                while statuses.withLockedValue({ $0.filter { $0 == 200 }.count }) < 20 { try await Task.sleep(for: .milliseconds(1)) }
                try cluster.stop()
                phase.withLockedValue { $0 = 1 }
                let before = statuses.withLockedValue { $0.count }
                while statuses.withLockedValue({ $0.count }) < before + 6 { try await Task.sleep(for: .milliseconds(1)) }
                try cluster.start()
                phase.withLockedValue { $0 = 2 }
            }
            try await group.waitForAll()
        }
        let all = statuses.withLockedValue { $0 }
        print("postgres restart: \(all.count) requests, statuses \(Dictionary(grouping: all, by: { $0 }).mapValues(\.count))")
        #expect(!all.contains(500))
        #expect(!all.contains(-1))
        #expect(all.contains(503))
        #expect(all.suffix(3).allSatisfy { $0 == 200 })
        #expect(!all.contains(0), "a request hung for 15 s")
        // Requests made while PostgreSQL is down wait at most the lease deadline (3 s). One that
        // took as long as the operation deadline (10 s) was stuck on a statement that never
        // returned and was only cut short by that safety net.
        let longest = slowest.withLockedValue { $0 }
        print("postgres restart: slowest request \(longest)")
        #expect(longest < PostgresStorage.operationDeadline - .seconds(2), "a request waited for the operation deadline")
    }
}
