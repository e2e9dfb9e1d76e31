import Foundation
import GRDB

extension ConvergenceRun {
    /// Runs `nimbus device sync` on the online devices at once, killing some of them with
    /// SIGKILL at seeded instants, and now and then kills a server and starts it again.
    func syncUnderFaults(_ online: [Int]) async throws {
        let start = ContinuousClock.now
        var running: [(device: Int, process: Process, killAt: Duration?)] = []
        for device in online {
            let process = try nimbusProcess(["device", "sync", devices[device]], device: device)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let killAt = Double.random(in: 0..<1, using: &random) < 0.3 ? Duration.milliseconds(Int.random(in: 20...700, using: &random)) : nil
            try process.run()
            running.append((device, process, killAt))
        }
        var serverKill: (index: Int, at: Duration, downFor: Duration)?
        if Double.random(in: 0..<1, using: &random) < 0.35 {
            serverKill = (Int.random(in: 0..<servers.ports.count, using: &random), .milliseconds(Int.random(in: 20...800, using: &random)),
                          .milliseconds(Int.random(in: 100...1000, using: &random)))
        }
        var serverKilled = false
        while running.contains(where: { $0.process.isRunning }) || (serverKill != nil && !serverKilled) {
            let elapsed = ContinuousClock.now - start
            for index in running.indices where running[index].process.isRunning {
                if let killAt = running[index].killAt, elapsed >= killAt {
                    Self.killTree(running[index].process.processIdentifier)
                    outcome.syncKills += 1
                    log("  SIGKILL device sync d\(running[index].device) at \(killAt)")
                    running[index].killAt = nil
                } else if elapsed > .seconds(120) {
                    Self.killTree(running[index].process.processIdentifier)
                    log("  device sync d\(running[index].device) still running after 120 s: killed")
                }
            }
            if let kill = serverKill, !serverKilled, elapsed >= kill.at {
                servers.kill(kill.index)
                outcome.serverKills += 1
                serverKilled = true
                log("  SIGKILL server \(kill.index) at \(kill.at), down for \(kill.downFor)")
                try await Task.sleep(for: kill.downFor)
                try await servers.start(kill.index)
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        for (device, process, _) in running {
            process.waitUntilExit()
            if process.terminationReason == .exit, process.terminationStatus != 0 {
                outcome.failedSyncs += 1
                log("  device sync d\(device) failed (exit \(process.terminationStatus))")
            }
        }
    }

    /// With faults off, syncs every device in turn until a whole pass changes nothing.
    func syncUntilQuiet() async throws {
        for pass in 1...15 {
            var changed = false
            for device in devices.indices {
                let result = try SyncServer.run(["device", "sync", devices[device], "--json"])
                guard result.status == 0,
                      let summary = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any] else {
                    changed = true
                    log("quiet pass \(pass): d\(device) sync failed: \(result.error.trimmingCharacters(in: .whitespacesAndNewlines))")
                    continue
                }
                let counts = ["exported", "imported", "deleted", "conflicts"].map { summary[$0] as? Int ?? 0 }
                if counts.contains(where: { $0 > 0 }) {
                    changed = true
                    log("quiet pass \(pass): d\(device) exported \(counts[0]) imported \(counts[1]) deleted \(counts[2]) conflicts \(counts[3])")
                }
            }
            if !changed {
                outcome.quietAfter = pass
                return
            }
        }
        outcome.problems.append("the devices were still changing after 15 passes of device sync")
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
