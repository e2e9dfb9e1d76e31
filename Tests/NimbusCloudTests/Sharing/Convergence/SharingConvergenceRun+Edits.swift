import Foundation

/// The edits of a round: the owner's devices make lists and items and edit them; the
/// participants' devices edit what they see of the shares. A participant's edit of a share
/// its device knows to be read-only must be refused locally, and one of a share it knows to
/// be read-write must not be.
extension SharingConvergenceRun {
    /// What a device holds: list name → (color, shared-store or not), item title → (note, list name).
    struct DeviceView {
        var lists: [String: String?] = [:]
        var items: [String: (note: String?, list: String?)] = [:]
    }

    func view(_ device: Int) throws -> DeviceView {
        var view = DeviceView()
        var listNames: [String: String] = [:]
        for object in try fetch(device, "List") {
            let name = object["name"] as? String ?? "?"
            listNames[object["objectID"] as? String ?? ""] = name
            view.lists[name] = object["color"] as? String
        }
        for object in try fetch(device, "Item") {
            let link = (object["list"] as? [String])?.first ?? object["list"] as? String
            view.items[object["title"] as? String ?? "?"] = (object["note"] as? String, link.map { listNames[$0] ?? "unknown list \($0)" })
        }
        return view
    }

    func fetch(_ device: Int, _ entity: String) throws -> [[String: Any]] {
        let result = try store(device, "fetch", [entity, "--json"])
        guard let objects = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]] else {
            throw TestFailure("nimbus store fetch \(entity) on \(devices[device].label) did not print a JSON array")
        }
        return objects
    }

    func edit(_ device: Int, operations: Int) throws {
        guard operations > 0 else { return }
        var view = try view(device)
        for _ in 0..<operations {
            if devices[device].isOwner { try ownerEdit(device, &view) } else { try participantEdit(device, &view) }
        }
    }

    private func ownerEdit(_ device: Int, _ view: inout DeviceView) throws {
        let roll = Int.random(in: 0..<100, using: &random)
        let names = view.lists.keys.sorted(), titles = view.items.keys.sorted()
        if roll < 15 || names.isEmpty {
            let name = nextValue("L", device)
            try store(device, "insert", ["List", "name=\(name)", "color=\(nextValue("color", device))"])
            step += 1
            lists[name] = SharedList(name: name, creator: device, changedAt: step)
            log("\(devices[device].label) makes list \(name)")
            view.lists[name] = .some(nil)
            try insertItem(device, into: name, &view)
        } else if roll < 50 {
            try insertItem(device, into: names.randomElement(using: &random)!, &view)
        } else if roll < 75, let title = titles.randomElement(using: &random) {
            let note = nextValue("note", device)
            try store(device, "update", ["Item", "--predicate", "title == '\(title)'", "note=\(note)"])
            log("\(devices[device].label) notes \(title): \(note)")
        } else if roll < 85 {
            let name = names.randomElement(using: &random)!, color = nextValue("color", device)
            try store(device, "update", ["List", "--predicate", "name == '\(name)'", "color=\(color)"])
            log("\(devices[device].label) colors \(name) \(color)")
        } else if roll < 97, let title = titles.randomElement(using: &random) {
            try store(device, "delete", ["Item", "--predicate", "title == '\(title)'"])
            step += 1
            items[title]?.deletedBy = (devices[device].user, step)
            view.items[title] = nil
            log("\(devices[device].label) deletes \(title)")
        } else if let name = names.randomElement(using: &random), lists[name] != nil {
            try store(device, "delete", ["List", "--predicate", "name == '\(name)'"])
            step += 1
            lists[name]!.deleted = true
            lists[name]!.changedAt = step
            view.lists[name] = nil
            for (title, item) in view.items where item.list == name { view.items[title] = nil }
            log("\(devices[device].label) deletes list \(name) and its items")
        }
    }

    private func insertItem(_ device: Int, into list: String, _ view: inout DeviceView) throws {
        let title = nextValue("item", device)
        let result = try write(device, list: list, "insert", ["Item", "title=\(title)", "note=\(nextValue("note", device))", "list=List[name=\(list)]"])
        guard result else { return }
        step += 1
        items[title] = WrittenItem(title: title, list: list, user: devices[device].user, step: step)
        view.items[title] = (nil, list)
        log("\(devices[device].label) adds \(title) to \(list)")
    }

    private func participantEdit(_ device: Int, _ view: inout DeviceView) throws {
        let roll = Int.random(in: 0..<100, using: &random)
        let names = view.lists.keys.sorted(), titles = view.items.keys.sorted()
        guard !names.isEmpty else { return }
        if roll < 40 || titles.isEmpty {
            try insertItem(device, into: names.randomElement(using: &random)!, &view)
        } else if roll < 85 {
            let title = titles.randomElement(using: &random)!, note = nextValue("note", device)
            guard let list = view.items[title]?.list,
                  try write(device, list: list, "update", ["Item", "--predicate", "title == '\(title)'", "note=\(note)"]) else { return }
            log("\(devices[device].label) notes \(title): \(note)")
        } else {
            let title = titles.randomElement(using: &random)!
            guard let list = view.items[title]?.list,
                  try write(device, list: list, "delete", ["Item", "--predicate", "title == '\(title)'"]) else { return }
            step += 1
            items[title]?.deletedBy = (devices[device].user, step)
            view.items[title] = nil
            log("\(devices[device].label) deletes \(title)")
        }
    }

    /// Runs a store command that writes to a list's objects and checks the answer against
    /// what the device must know of its permission.
    /// - Returns: Whether the write was saved.
    private func write(_ device: Int, list: String, _ command: String, _ arguments: [String]) throws -> Bool {
        let user = devices[device].user
        guard user != Self.owner else {
            try store(device, command, arguments)
            return true
        }
        let result = try store(device, command, arguments, allowingFailure: true)
        let state = lists[list]
        // The device has synced since the last change of the user's access it could know of.
        let informed = state.map { !$0.uncertain && (lastSync[device] ?? -1) > max($0.accessChangedAt[user] ?? 0, $0.changedAt) } ?? false
        let permission = state?.invited[user]
        if result.status == 0 {
            if informed, permission == "read-only" {
                outcome.problems.append("\(devices[device].label) saved \(command) \(arguments.joined(separator: " ")) in \(list), read-only for \(user) since a sync it completed")
            }
            return true
        }
        guard result.error.contains("read-only") else {
            throw TestFailure("nimbus store \(command) \(arguments.joined(separator: " ")) failed on \(devices[device].label): \(result.error)")
        }
        outcome.refusedEdits += 1
        log("\(devices[device].label) \(command) in \(list) refused: read-only")
        if informed, permission == "read-write" {
            outcome.problems.append("\(devices[device].label) was refused \(command) in \(list), read-write for \(user) since a sync it completed")
        }
        return false
    }
}
