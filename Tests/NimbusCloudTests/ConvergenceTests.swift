import Foundation
import Testing

/// Issue 11: every replica converges under faults. Each seed runs devices (separate
/// `nimbus` processes) through a fault proxy while sync processes and the server are killed;
/// when faults stop and every device has synced until quiet, the replicas must be identical
/// and agree with what was written (see `ConvergenceOracle`).
///
/// CI runs a bounded set of seeds. More:
/// `NIMBUS_CONVERGENCE_SEEDS=1000 swift test --filter Convergence` (seeds 1…1000, or from
/// `NIMBUS_CONVERGENCE_FIRST_SEED`); one seed: `NIMBUS_CONVERGENCE_SEED=17`. Also
/// `NIMBUS_CONVERGENCE_DEVICES` (default 4) and `NIMBUS_CONVERGENCE_ROUNDS` (default 8);
/// `NIMBUS_CONVERGENCE_WATCHER=0` leaves out the in-process automatic device;
/// `NIMBUS_CONVERGENCE_LOG=1` prints each seed's schedule.
@Suite("Convergence under faults", .serialized)
struct ConvergenceTests {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    static var seeds: [UInt64] {
        if let seed = environment["NIMBUS_CONVERGENCE_SEED"].flatMap(UInt64.init) { return [seed] }
        let first = environment["NIMBUS_CONVERGENCE_FIRST_SEED"].flatMap(UInt64.init) ?? 1
        let count = environment["NIMBUS_CONVERGENCE_SEEDS"].flatMap(UInt64.init) ?? 2
        return Array(first..<(first + count))
    }

    static func configuration(_ seed: UInt64) -> ConvergenceRun.Configuration {
        var configuration = ConvergenceRun.Configuration(seed: seed)
        if let devices = environment["NIMBUS_CONVERGENCE_DEVICES"].flatMap(Int.init) { configuration.devices = devices }
        if let rounds = environment["NIMBUS_CONVERGENCE_ROUNDS"].flatMap(Int.init) { configuration.rounds = rounds }
        if environment["NIMBUS_CONVERGENCE_WATCHER"] == "0" { configuration.watcher = false }
        return configuration
    }

    static func report(_ outcome: ConvergenceRun.Outcome, elapsed: Duration) {
        let faults = outcome.faults.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        print("convergence seed \(outcome.seed): \(outcome.problems.isEmpty ? "PASS" : "FAIL") in \(elapsed); \(outcome.objects) objects, "
            + "\(outcome.syncKills) sync SIGKILLs, \(outcome.serverKills) server SIGKILLs, \(outcome.failedSyncs) failed syncs, "
            + "quiet after \(outcome.quietAfter) pass(es); faults: \(faults)")
        if !outcome.problems.isEmpty || environment["NIMBUS_CONVERGENCE_LOG"] != nil {
            for line in outcome.log { print("  \(line)") }
        }
        for problem in outcome.problems.prefix(40) { print("  PROBLEM seed \(outcome.seed): \(problem)") }
    }

    @Test("devices editing through a faulty network, killed mid-sync, with the server killed, converge")
    func convergence() async throws {
        try await Self.runSeeds(Self.seeds) { Self.configuration($0) }
    }

    /// The same on PostgreSQL, with two server processes on one database behind the proxy
    /// (requests alternate between them; each is killed and restarted at random).
    /// Seeds: `NIMBUS_CONVERGENCE_PG_SEEDS` (default 1, from `NIMBUS_CONVERGENCE_FIRST_SEED`).
    @Test("devices converge through two server processes on one PostgreSQL database")
    func convergenceOnPostgres() async throws {
        guard ConvergencePostgres.binariesPresent else {
            print("⚠️  convergence on PostgreSQL skipped: no initdb in \(ConvergencePostgres.binDirectory)")
            return
        }
        let first = Self.environment["NIMBUS_CONVERGENCE_FIRST_SEED"].flatMap(UInt64.init) ?? 1
        let count = Self.environment["NIMBUS_CONVERGENCE_PG_SEEDS"].flatMap(UInt64.init) ?? 1
        let seeds = Self.environment["NIMBUS_CONVERGENCE_SEED"].flatMap(UInt64.init).map { [$0] } ?? Array(first..<(first + count))
        var clusters: [ConvergencePostgres] = []
        defer { for cluster in clusters { cluster.destroy() } }
        try await Self.runSeeds(seeds) { seed in
            // A cluster per seed, so that each seed starts from an empty database; the
            // previous seed's is done with (a long sweep would otherwise keep hundreds running).
            for cluster in clusters { cluster.destroy() }
            clusters.removeAll()
            let cluster = try ConvergencePostgres()
            clusters.append(cluster)
            var configuration = Self.configuration(seed)
            configuration.servers = 2
            configuration.postgres = cluster.url
            return configuration
        }
    }

    static func runSeeds(_ seeds: [UInt64], _ configuration: (UInt64) throws -> ConvergenceRun.Configuration) async throws {
        var failing: [UInt64] = []
        for seed in seeds {
            let start = ContinuousClock.now
            let outcome: ConvergenceRun.Outcome
            do {
                outcome = try await ConvergenceRun.run(try configuration(seed))
            } catch {
                // A run that could not go on (a server that would not restart, a store command
                // that failed) fails its seed; the other seeds still run.
                outcome = ConvergenceRun.Outcome(seed: seed, problems: ["the run stopped: \(error)"], log: [], faults: [:])
            }
            report(outcome, elapsed: ContinuousClock.now - start)
            if !outcome.problems.isEmpty {
                failing.append(seed)
                print("FAILING SEED \(seed) (\(outcome.postgres ? "PostgreSQL" : "SQLite")): replay with NIMBUS_CONVERGENCE_SEED=\(seed) swift test --filter Convergence")
            }
        }
        print("convergence: \(seeds.count - failing.count) of \(seeds.count) seed(s) passed; failing: \(failing)")
        #expect(failing.isEmpty, "failing seeds: \(failing)")
    }
}
