import Foundation
import Nimbus
import NimbusCloud
import NimbusWire

/// What apps live through, added to the convergence run (issue 24), each seeded: the app's
/// model upgrades mid-run (a new entity that renumbers the others, a new field that upgraded
/// devices write) while other devices stay on the old one until the end; a device whose clock
/// runs days ahead or behind (libfaketime) for some rounds; records that no device can apply,
/// written through the server's API by another client; a device given a fresh token of the
/// same user (`nimbus device login`), its old token then revoked.
extension ConvergenceRun {
    /// The model after the upgrade: an `Album` entity (it sorts first: every entity number
    /// moves) and `Post.mood`.
    static func upgradedModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Album") {
                AttributeDescription("name", .string)
            }
            EntityDescription("Post") {
                AttributeDescription("title", .string)
                AttributeDescription("body", .string)
                AttributeDescription("views", .integer64, defaultValue: 0)
                AttributeDescription("mood", .integer16)
                RelationshipDescription("category", to: "Category", inverse: "posts")
                RelationshipDescription("tags", to: "Tag", inverse: "posts", toMany: true)
            }
            EntityDescription("Category") {
                AttributeDescription("name", .string)
                AttributeDescription("color", .string)
                RelationshipDescription("posts", to: "Post", inverse: "category", toMany: true)
            }
            EntityDescription("Tag", uniquenessConstraints: [["name"]]) {
                AttributeDescription("name", .string)
                AttributeDescription("note", .string)
                RelationshipDescription("posts", to: "Post", inverse: "tags", toMany: true)
            }
        }
    }

    var upgradedModelPath: String { servers.folder.url.appendingPathComponent("Convergence-v2.json").path }

    /// A `nimbus` process for a device, under its clock (the `faketime` wrapper, which runs
    /// `nimbus` as its child: kill both with ``killTree(_:)``) when it has a skewed one.
    func nimbusProcess(_ arguments: [String], device: Int?) throws -> Process {
        try Self.nimbusProcess(arguments, clock: device.flatMap { life.clocks[$0] })
    }

    /// A `nimbus` process, under a faketime offset (`"+2d"`) when `clock` is given.
    static func nimbusProcess(_ arguments: [String], clock offset: String?) throws -> Process {
        let process = Process()
        if let offset {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/faketime")
            process.arguments = ["-f", offset, try SyncServer.executable] + arguments
            process.environment = ProcessInfo.processInfo.environment.merging(["FAKETIME_DONT_FAKE_MONOTONIC": "1"]) { _, new in new }
        } else {
            process.executableURL = URL(fileURLWithPath: try SyncServer.executable)
            process.arguments = arguments
        }
        return process
    }

    /// SIGKILLs a process and its descendants (children first read from `/proc`): a killed
    /// `faketime` wrapper would otherwise leave its `nimbus` running, and the run waiting.
    ///
    /// A killed wrapper leaves its shared-memory clock and semaphore behind (named by its pid):
    /// a later wrapper that gets the same pid would fail with "sem_open: File exists", so they
    /// go too.
    static func killTree(_ pid: Int32) {
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        let wrapper = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.hasPrefix("faketime") == true
        kill(pid, SIGKILL)
        for child in children.split(separator: " ").compactMap({ Int32($0) }) { killTree(child) }
        if wrapper {
            for name in ["sem.faketime_sem_\(pid)", "faketime_shm_\(pid)"] { try? FileManager.default.removeItem(atPath: "/dev/shm/" + name) }
        }
    }

    /// Runs `nimbus` for a device (under its clock) and returns its status and output.
    func runNimbus(_ arguments: [String], device: Int?) throws -> (status: Int32, output: String, error: String) {
        let process = try nimbusProcess(arguments, device: device)
        let (output, error) = try process.runCapturingOutput()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self))
    }

    /// The seeded events of a round, before its edits.
    func lifeEvents(round: Int) async throws {
        guard configuration.life else { return }
        let editors = Array(0..<configuration.devices)
        // The model upgrade ships at a seeded round; devices take it at their own pace.
        if round == life.upgradeRound {
            try JSONEncoder().encode(try Self.upgradedModel()).write(to: URL(fileURLWithPath: upgradedModelPath))
            life.upgradeShipped = true
        }
        if life.upgradeShipped {
            for device in editors where !life.upgraded.contains(device) && Double.random(in: 0..<1, using: &random) < 0.4 {
                try upgrade(device)
            }
        }
        // A device's clock goes wrong for a few rounds, then is corrected.
        if life.clocks.isEmpty, FileManager.default.isExecutableFile(atPath: "/usr/bin/faketime"),
           Double.random(in: 0..<1, using: &random) < 0.2 {
            let device = editors.randomElement(using: &random)!
            let days = [-3, -1, 2, 4].randomElement(using: &random)!
            life.clocks[device] = days > 0 ? "+\(days)d" : "\(days)d"
            life.clockRounds = Int.random(in: 1...3, using: &random)
            log("round \(round): d\(device)'s clock is set \(days) days off for \(life.clockRounds) round(s)")
        } else if !life.clocks.isEmpty {
            life.clockRounds -= 1
            if life.clockRounds <= 0 {
                log("round \(round): d\(life.clocks.keys.first!)'s clock is corrected")
                life.clocks = [:]
            }
        }
        // Another client writes records that no device can apply.
        if Double.random(in: 0..<1, using: &random) < 0.25 { try await injectBadRecords(round: round) }
        // A device gets a fresh token of the same user; its old one is revoked.
        if Double.random(in: 0..<1, using: &random) < 0.2 { try swapToken(editors.randomElement(using: &random)!, round: round) }
    }

    /// Mints a new token for a device of the same user, signs the device in with it (the
    /// token is swapped in place: same store, unsent edits kept) and revokes the old one, so
    /// that every later sync of the device proves it uses the new token.
    func swapToken(_ device: Int, round: Int) throws {
        let storage = servers.postgres.map { ["--postgres", $0] } ?? []
        let name = "device\(device)-r\(round)"
        let created = try SyncServer.run(["tokens", "create", "--user", "alice", "--device", name, "--data-dir", servers.dataDirectory] + storage)
        try SyncServer.check(created)
        let token = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let login = try runNimbus(["device", "login", devices[device], "--token", token], device: device)
        guard login.status == 0 else {
            // Refused through the fault proxy (a cut, a server down): the old token stays in use.
            log("round \(round): d\(device) login with a fresh token failed (\(login.error.trimmingCharacters(in: .whitespacesAndNewlines))); keeps its token")
            return
        }
        let previous = life.tokenNames[device] ?? "device\(device)"
        try SyncServer.check(SyncServer.run(["tokens", "revoke", "--user", "alice", "--device", previous, "--data-dir", servers.dataDirectory] + storage))
        life.tokenNames[device] = name
        life.tokenSwaps += 1
        log("round \(round): d\(device) signs in with a fresh token of the same user (\(name)); \(previous) is revoked")
    }

    /// Upgrades a device folder as an app update would (`nimbus store migrate`).
    func upgrade(_ device: Int) throws {
        let result = try runNimbus(["store", "migrate", devices[device], "--model", upgradedModelPath], device: device)
        guard result.status == 0 else { throw TestFailure("nimbus store migrate d\(device) failed: \(result.error)") }
        life.upgraded.insert(device)
        log("d\(device) upgrades to the model v2")
    }

    /// Before the final sync: clocks corrected, and every device (the watcher's folder too) on
    /// the new model, if it shipped.
    func finishLife() throws {
        guard configuration.life else { return }
        life.clocks = [:]
        guard life.upgradeShipped else { return }
        for device in devices.indices where !life.upgraded.contains(device) { try upgrade(device) }
    }

    /// Writes records of a wrong field type, of an unknown entity and an unknown membership.
    private func injectBadRecords(round: Int) async throws {
        let transport = HTTPTransport(options: CloudContainerOptions(serverURL: URL(string: "http://127.0.0.1:\(servers.ports[0])")!,
                                                                     containerIdentifier: "nimbus", token: servers.tokens.last!))
        let stamp = HLCStamp(time: Int64(Date().timeIntervalSince1970 * 1000) << 16, device: "injector")
        let suffix = "r\(round)-\(Int.random(in: 0..<1_000_000, using: &random))"
        func record(_ name: String, _ type: String, _ fields: [String: FieldValue]) -> Record {
            Record(recordName: name, recordType: type, fields: fields.mapValues { Field($0, stamp: stamp) })
        }
        let bad = [
            record("bad-type-\(suffix)", "CD_Post", ["CD_entityName": .string("Post"), "CD_title": .string("bad-\(suffix)"), "CD_views": .string("lots")]),
            record("bad-entity-\(suffix)", "CD_Gadget", ["CD_entityName": .string("Gadget"), "CD_name": .string(suffix)]),
            record("bad-link-\(suffix)", "CDMR", ["CD_relationshipKey": .string("Gadget.posts|Post.gadgets"), "CD_linked": .bool(true),
                                                   "CD_recordNames": .list([.string("bad-entity-\(suffix)"), .string("bad-type-\(suffix)")])]),
        ]
        do {
            _ = try await transport.modify(ModifyRecordsRequest(saves: bad, savePolicy: .allKeys), in: ZoneID(zoneName: CloudContainerOptions.defaultZoneName))
            life.injected += bad.map(\.recordName)
            log("round \(round): another client wrote \(bad.count) records no device can apply")
        } catch {
            // The server may be down (killed by the run): the injection is skipped.
            log("round \(round): injecting bad records failed (\(error))")
        }
    }

    /// Every device set aside every injected record, and nothing else of the injected ones applied.
    func checkLife() throws {
        guard configuration.life, !life.injected.isEmpty else { return }
        for (index, directory) in devices.enumerated() {
            let result = try SyncServer.run(["device", "status", directory, "--json"])
            guard result.status == 0,
                  let stores = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]] else {
                outcome.problems.append("d\(index): device status failed: \(result.error)")
                continue
            }
            let kept = Set(stores.flatMap { ($0["quarantined"] as? [[String: Any]] ?? []).compactMap { $0["recordName"] as? String } })
            let missing = Set(life.injected).subtracting(kept)
            if !missing.isEmpty { outcome.problems.append("d\(index): injected records not set aside: \(missing.sorted().prefix(5))") }
        }
    }
}

/// The life events of one run (see ``ConvergenceRun/lifeEvents(round:)``).
struct ConvergenceLife {
    var upgradeRound = Int.max
    var upgradeShipped = false
    var upgraded: Set<Int> = []
    /// Device → faketime offset, while its clock is wrong.
    var clocks: [Int: String] = [:]
    var clockRounds = 0
    /// Names of the records no device can apply.
    var injected: [String] = []
    /// Device → the name its current token was made under, once swapped.
    var tokenNames: [Int: String] = [:]
    var tokenSwaps = 0
}
