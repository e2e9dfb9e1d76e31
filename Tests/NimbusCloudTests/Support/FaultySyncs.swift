import Foundation
import NimbusTesting

/// Device syncs under faults, shared by the convergence runs (``ConvergenceRun`` and
/// ``SharingConvergenceRun``): `nimbus device sync` processes run at once, some SIGKILLed at
/// seeded instants, while a server is now and then killed and started again; and the final
/// passes, faults off, until nothing changes.
enum FaultySyncs {
    struct Tally {
        var syncKills = 0
        var serverKills = 0
        var failedSyncs = 0
    }

    /// Runs the given `nimbus device sync` processes (not yet started) at once, killing some
    /// with SIGKILL at seeded instants, and now and then kills a server and starts it again.
    static func round(_ syncs: [(label: String, process: Process)], servers: ServerProcesses,
                      random: inout SeededGenerator, log: (String) -> Void) async throws -> Tally {
        var tally = Tally()
        let start = ContinuousClock.now
        var running: [(label: String, process: Process, killAt: Duration?)] = []
        // With a log asked for, each failure says why (its error output goes to a file).
        let errors = ProcessInfo.processInfo.environment["NIMBUS_CONVERGENCE_LOG"] == nil ? nil : try TemporaryDirectory()
        for (label, process) in syncs {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            if let errors {
                let file = errors.url.appendingPathComponent(label)
                FileManager.default.createFile(atPath: file.path, contents: nil)
                process.standardError = try FileHandle(forWritingTo: file)
            }
            let killAt = Double.random(in: 0..<1, using: &random) < 0.3 ? Duration.milliseconds(Int.random(in: 20...700, using: &random)) : nil
            try process.run()
            running.append((label, process, killAt))
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
                    ConvergenceRun.killTree(running[index].process.processIdentifier)
                    tally.syncKills += 1
                    log("  SIGKILL device sync \(running[index].label) at \(killAt)")
                    running[index].killAt = nil
                } else if elapsed > .seconds(120) {
                    ConvergenceRun.killTree(running[index].process.processIdentifier)
                    log("  device sync \(running[index].label) still running after 120 s: killed")
                }
            }
            if let kill = serverKill, !serverKilled, elapsed >= kill.at {
                servers.kill(kill.index)
                tally.serverKills += 1
                serverKilled = true
                log("  SIGKILL server \(kill.index) at \(kill.at), down for \(kill.downFor)")
                try await Task.sleep(for: kill.downFor)
                try await servers.start(kill.index)
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        for (label, process, _) in running {
            process.waitUntilExit()
            if process.terminationReason == .exit, process.terminationStatus != 0 {
                tally.failedSyncs += 1
                let why = errors.flatMap { try? String(contentsOf: $0.url.appendingPathComponent(label), encoding: .utf8) } ?? ""
                log("  device sync \(label) failed (exit \(process.terminationStatus))" + (why.isEmpty ? "" : ": " + why.trimmingCharacters(in: .whitespacesAndNewlines)))
            }
        }
        return tally
    }

    /// With faults off, syncs every device in turn until a whole pass changes nothing.
    /// - Returns: The pass after which nothing changed, or `nil` after 15 passes that all did.
    static func untilQuiet(_ devices: [(label: String, path: String)], log: (String) -> Void) throws -> Int? {
        for pass in 1...15 {
            var changed = false
            for (label, path) in devices {
                let result = try SyncServer.run(["device", "sync", path, "--json"])
                guard result.status == 0,
                      let summary = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any] else {
                    changed = true
                    log("quiet pass \(pass): \(label) sync failed: \(result.error.trimmingCharacters(in: .whitespacesAndNewlines))")
                    continue
                }
                let counts = ["exported", "imported", "deleted", "conflicts"].map { summary[$0] as? Int ?? 0 }
                if counts.contains(where: { $0 > 0 }) {
                    changed = true
                    log("quiet pass \(pass): \(label) exported \(counts[0]) imported \(counts[1]) deleted \(counts[2]) conflicts \(counts[3])")
                }
            }
            if !changed { return pass }
        }
        return nil
    }
}
