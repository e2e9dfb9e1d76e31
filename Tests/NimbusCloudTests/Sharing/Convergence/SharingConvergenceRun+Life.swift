import Foundation

/// The seeded sharing events of a round, before its edits; each a `nimbus device …` process
/// that goes through the fault proxy, so any of them may fail (and may still have been
/// applied on the server: the list is then marked uncertain, and the server's word is taken
/// at the end).
extension SharingConvergenceRun {
    func lifeEvents(round: Int) throws {
        for name in lists.keys.sorted() where lists[name]!.shareID == nil && !lists[name]!.deleted {
            // A list waiting for its share: shared now, or its failed share retried.
            if !lists[name]!.wanted.isEmpty || Double.random(in: 0..<1, using: &random) < 0.5 { try share(name) }
        }
        for name in lists.keys.sorted() where lists[name]!.isShared {
            for user in Self.participants where lists[name]!.invited[user] != nil && !lists[name]!.accepted.contains(user)
                && !lists[name]!.left.contains(user) && Double.random(in: 0..<1, using: &random) < 0.6 {
                try accept(name, user: user)
            }
            let roll = Double.random(in: 0..<1, using: &random)
            let user = Self.participants.randomElement(using: &random)!
            if roll < 0.2, lists[name]!.invited[user] != nil {
                try changeParticipant(name, ["--add", "\(user):\(lists[name]!.invited[user] == "read-write" ? "read-only" : "read-write")"], user: user, event: "permission")
            } else if roll < 0.32, lists[name]!.invited[user] != nil {
                try changeParticipant(name, ["--remove", user], user: user, event: "removal")
            } else if roll < 0.42, lists[name]!.invited[user] == nil, !lists[name]!.left.contains(user) {
                try changeParticipant(name, ["--add", "\(user):\(Bool.random(using: &random) ? "read-write" : "read-only")"], user: user, event: "invitation")
            } else if roll < 0.48, lists[name]!.accepted.contains(user) {
                try leave(name, user: user)
            } else if roll < 0.52 {
                try stopSharing(name)
            }
        }
        if clocks.isEmpty, FileManager.default.isExecutableFile(atPath: "/usr/bin/faketime"), Double.random(in: 0..<1, using: &random) < 0.15 {
            let device = devices.indices.randomElement(using: &random)!
            let days = [-3, -1, 2, 4].randomElement(using: &random)!
            clocks[device] = days > 0 ? "+\(days)d" : "\(days)d"
            log("round \(round): \(devices[device].label)'s clock is set \(days) days off")
        } else if !clocks.isEmpty, Double.random(in: 0..<1, using: &random) < 0.4 {
            log("round \(round): \(devices[clocks.keys.first!].label)'s clock is corrected")
            clocks = [:]
        }
    }

    /// Shares a list from the device that made it, with participants chosen once (a retry
    /// asks for the same ones: it must finish the same share, not make another).
    private func share(_ name: String) throws {
        var list = lists[name]!
        if list.wanted.isEmpty {
            for user in Self.participants where Double.random(in: 0..<1, using: &random) < 0.7 {
                list.wanted[user] = Bool.random(using: &random) ? "read-write" : "read-only"
            }
        }
        step += 1
        for user in Self.participants { list.accessChangedAt[user] = step }
        let result = try attempt(["device", "share", devices[list.creator].path, "List", "--predicate", "name == '\(name)'", "--json"]
            + list.wanted.sorted { $0.key < $1.key }.flatMap { ["--with", "\($0.key):\($0.value)"] }, device: list.creator)
        if result.status == 0, let json = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
           let id = json["id"] as? String, let url = json["url"] as? String {
            list.shareID = id
            list.url = url
            list.invited = list.wanted
            list.wanted = [:]
            // Nothing else happens to a list before its share: what failed before is now known.
            list.uncertain = false
            count("share")
            log("\(devices[list.creator].label) shares \(name) as \(id) with \(list.invited.sorted { $0.key < $1.key })")
        } else {
            list.uncertain = true
            log("\(devices[list.creator].label) sharing \(name) failed (\(Self.firstLine(result.error))); retried later")
        }
        lists[name] = list
    }

    /// One device of the user accepts the share's URL.
    private func accept(_ name: String, user: String) throws {
        let device = devices(of: user).randomElement(using: &random)!
        step += 1
        lists[name]!.accessChangedAt[user] = step
        let result = try attempt(["device", "accept", devices[device].path, lists[name]!.url!], device: device)
        if result.status == 0 {
            lists[name]!.accepted.insert(user)
            count("accept")
            log("\(devices[device].label) accepts \(name)")
        } else {
            lists[name]!.uncertain = true
            log("\(devices[device].label) accepting \(name) failed (\(Self.firstLine(result.error)))")
        }
    }

    /// The owner (from either of their devices) adds, removes or changes a participant.
    private func changeParticipant(_ name: String, _ arguments: [String], user: String, event: String) throws {
        let device = devices(of: Self.owner).randomElement(using: &random)!
        step += 1
        lists[name]!.accessChangedAt[user] = step
        let result = try attempt(["device", "participants", devices[device].path, lists[name]!.shareID!] + arguments, device: device)
        guard result.status == 0 else {
            lists[name]!.uncertain = true
            log("\(devices[device].label) \(event) of \(user) on \(name) failed (\(Self.firstLine(result.error)))")
            return
        }
        count(event)
        log("\(devices[device].label) \(arguments.joined(separator: " ")) on \(name)")
        if arguments[0] == "--remove" {
            lists[name]!.invited[user] = nil
            lists[name]!.accepted.remove(user)
            lists[name]!.removed.insert(user)
        } else {
            let permission = String(arguments[1].split(separator: ":")[1])
            if lists[name]!.invited[user] == nil { lists[name]!.accepted.remove(user) }
            lists[name]!.invited[user] = permission
            lists[name]!.removed.remove(user)
        }
    }

    /// One device of a participant leaves the share (their other devices lose it too).
    private func leave(_ name: String, user: String) throws {
        let device = devices(of: user).randomElement(using: &random)!
        step += 1
        lists[name]!.accessChangedAt[user] = step
        let result = try attempt(["device", "leave", devices[device].path, lists[name]!.shareID!], device: device)
        guard result.status == 0 else {
            lists[name]!.uncertain = true
            log("\(devices[device].label) leaving \(name) failed (\(Self.firstLine(result.error)))")
            return
        }
        count("leave")
        lists[name]!.left.insert(user)
        lists[name]!.accepted.remove(user)
        lists[name]!.invited[user] = nil
        log("\(devices[device].label) leaves \(name)")
    }

    /// The owner stops sharing: every participant loses the list; the owner keeps it.
    private func stopSharing(_ name: String) throws {
        let device = devices(of: Self.owner).randomElement(using: &random)!
        step += 1
        lists[name]!.changedAt = step
        let result = try attempt(["device", "unshare", devices[device].path, lists[name]!.shareID!], device: device)
        guard result.status == 0 else {
            lists[name]!.uncertain = true
            log("\(devices[device].label) unsharing \(name) failed (\(Self.firstLine(result.error)))")
            return
        }
        count("unshare")
        lists[name]!.stopped = true
        log("\(devices[device].label) stops sharing \(name)")
    }

    /// Faults off: a share that never went through is retried until it does (it must finish
    /// the same share), so that the end state has no share only half made.
    func finishPending() async throws {
        for name in lists.keys.sorted() where lists[name]!.shareID == nil && !lists[name]!.deleted && !lists[name]!.wanted.isEmpty {
            try share(name)
            if lists[name]!.shareID == nil { outcome.problems.append("sharing \(name) still fails with faults off") }
        }
    }

    /// Runs a `nimbus device …` command of a device, trying again (as a user would) up to
    /// three times when it fails.
    private func attempt(_ arguments: [String], device: Int) throws -> (status: Int32, output: String, error: String) {
        var result = try nimbus(arguments, device: device)
        for _ in 0..<3 where result.status != 0 {
            log("  \(devices[device].label) \(arguments[1]) failed (\(Self.firstLine(result.error))); again")
            result = try nimbus(arguments, device: device)
        }
        return result
    }

    static func firstLine(_ text: String) -> String {
        String(text.split(separator: "\n").first ?? "").trimmingCharacters(in: .whitespaces)
    }
}
