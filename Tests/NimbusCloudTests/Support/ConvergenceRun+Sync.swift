import Foundation
import GRDB

extension ConvergenceRun {
    /// Runs `nimbus device sync` on the online devices at once under faults (see ``FaultySyncs``).
    func syncUnderFaults(_ online: [Int]) async throws {
        let syncs = try online.map { device in ("d\(device)", try nimbusProcess(["device", "sync", devices[device]], device: device)) }
        let tally = try await FaultySyncs.round(syncs, servers: servers, random: &random) { log($0) }
        outcome.syncKills += tally.syncKills
        outcome.serverKills += tally.serverKills
        outcome.failedSyncs += tally.failedSyncs
    }

    /// With faults off, syncs every device in turn until a whole pass changes nothing.
    func syncUntilQuiet() async throws {
        if let pass = try FaultySyncs.untilQuiet(devices.enumerated().map { ("d\($0.offset)", $0.element) }, log: { log($0) }) {
            outcome.quietAfter = pass
        } else {
            outcome.problems.append("the devices were still changing after 15 passes of device sync")
        }
    }

    /// Compares the replicas with each other and with the oracle, and checks each store file.
    func check() throws {
        let replicas = try devices.indices.map { try content($0) }
        outcome.objects = replicas[0].objects.count
        for (index, replica) in replicas.enumerated().dropFirst() where replica.comparable != replicas[0].comparable {
            let keys = Set(replica.objects.keys).union(replicas[0].objects.keys).sorted()
            let differences = keys.filter { replica.objects[$0] != replicas[0].objects[$0] }
            outcome.problems.append("d\(index) differs from d0 on \(differences.count) object(s): "
                + differences.prefix(5).map { "\($0): d0 \(replicas[0].objects[$0].map { "\($0)" } ?? "absent") vs d\(index) \(replica.objects[$0].map { "\($0)" } ?? "absent")" }.joined(separator: "; "))
        }
        for (index, replica) in replicas.enumerated() {
            outcome.problems += oracle.check(replica).map { "d\(index): \($0)" }
        }
        for (index, directory) in devices.enumerated() {
            let queue = try DatabaseQueue(path: try SyncServer.storePath(directory))
            try queue.read { db in
                let integrity = try String.fetchOne(db, sql: "PRAGMA integrity_check")
                if integrity != "ok" { outcome.problems.append("d\(index): integrity_check says \(integrity ?? "nothing")") }
                for table in ["ANIMBUSCLOUDPENDING", "ANIMBUSCLOUDDELETION", "ANIMBUSCLOUDPARKED"] where try db.tableExists(table) {
                    let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0
                    if count > 0 { outcome.problems.append("d\(index): \(count) row(s) left in \(table) after the sync") }
                }
            }
        }
    }
}
