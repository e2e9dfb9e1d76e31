import Foundation
import GRDB

/// The end of a sharing run: replicas compared with each other, with the server's shares and
/// with what the run did.
extension SharingConvergenceRun {
    /// A share as the server lists it to its owner.
    struct ServerShare {
        let id: String
        let zone: String
        /// User → (permission, state).
        let participants: [String: (permission: String, state: String)]
    }

    func check() throws {
        let owner = devices(of: Self.owner)
        let ownerViews = try owner.map { try view($0) }
        outcome.objects = ownerViews[0].lists.count + ownerViews[0].items.count
        for (index, other) in zip(owner, ownerViews).dropFirst() {
            compare(other, devices[index].label, with: ownerViews[0], "the owner's \(devices[owner[0]].label)")
        }
        let shares = try serverShares()
        checkAcknowledged(shares)
        let zones = try zonesOfOwnerObjects(owner[0])
        // A share holds its list, unless the list was deleted (a share the run never saw
        // acknowledged may be the share of a deleted list whose share() failed half-way).
        let deletedBeforeShared = lists.values.contains { $0.deleted && $0.shareID == nil }
        for share in shares where !zones.lists.values.contains(share.zone) {
            let list = lists.values.first { $0.shareID == share.id }
            if list.map({ !$0.deleted }) ?? !deletedBeforeShared {
                outcome.problems.append("share \(share.id) on the server holds no list (an empty share)")
            }
        }
        for user in Self.participants {
            let accepted = Set(shares.filter { $0.participants[user]?.state == "accepted" }.map(\.zone))
            var expected = DeviceView()
            for (name, color) in ownerViews[0].lists where zones.lists[name].map(accepted.contains) == true { expected.lists[name] = color }
            for (title, item) in ownerViews[0].items where zones.items[title].map(accepted.contains) == true { expected.items[title] = item }
            for device in devices(of: user) {
                compare(try view(device), devices[device].label, with: expected, "the owner's objects in the \(accepted.count) share(s) \(user) accepted")
            }
        }
        checkSurvival(ownerViews[0])
        try checkStores()
    }

    /// Differences between two views, as problems.
    private func compare(_ view: DeviceView, _ label: String, with expected: DeviceView, _ what: String) {
        func text(_ item: (note: String?, list: String?)?) -> String { item.map { "note \($0.note ?? "nil") in \($0.list ?? "no list")" } ?? "absent" }
        var differences: [String] = []
        for name in Set(view.lists.keys).union(expected.lists.keys).sorted() where view.lists[name] != expected.lists[name] {
            differences.append("list \(name): \(view.lists[name].map { $0 ?? "nil" } ?? "absent") vs \(expected.lists[name].map { $0 ?? "nil" } ?? "absent")")
        }
        for title in Set(view.items.keys).union(expected.items.keys).sorted()
            where view.items[title]?.note != expected.items[title]?.note || view.items[title]?.list != expected.items[title]?.list
            || (view.items[title] == nil) != (expected.items[title] == nil) {
            differences.append("\(title): \(text(view.items[title])) vs \(text(expected.items[title]))")
        }
        if !differences.isEmpty {
            outcome.problems.append("\(label) differs from \(what) on \(differences.count): " + differences.prefix(6).joined(separator: "; "))
        }
    }

    /// The owner's shares as the server lists them.
    private func serverShares() throws -> [ServerShare] {
        let device = devices(of: Self.owner)[0]
        let result = try nimbus(["device", "shares", devices[device].path, "--json"], device: device)
        guard result.status == 0, let array = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]] else {
            throw TestFailure("nimbus device shares failed: \(result.error)")
        }
        return array.filter { $0["role"] as? String == "owner" }.map { share in
            var participants: [String: (String, String)] = [:]
            for participant in share["participants"] as? [[String: Any]] ?? [] {
                participants[participant["user"] as? String ?? ""] = (participant["permission"] as? String ?? "", participant["state"] as? String ?? "invited")
            }
            return ServerShare(id: share["id"] as? String ?? "", zone: share["zone"] as? String ?? "", participants: participants)
        }
    }

    /// Every share change the run saw acknowledged is what the server holds (lists where a
    /// command failed are left to the server's word).
    private func checkAcknowledged(_ shares: [ServerShare]) {
        for list in lists.values.sorted(by: { $0.name < $1.name }) where list.shareID != nil && !list.uncertain {
            let share = shares.first { $0.id == list.shareID }
            if list.stopped {
                if share != nil { outcome.problems.append("\(list.name): sharing was stopped, the server still lists share \(list.shareID!)") }
                continue
            }
            guard let share else {
                if !list.deleted { outcome.problems.append("\(list.name): share \(list.shareID!) is gone from the server") }
                continue
            }
            for user in Self.participants {
                let held = share.participants[user]
                if let permission = list.invited[user] {
                    let state = list.accepted.contains(user) ? "accepted" : "invited"
                    if held?.permission != permission || held?.state != state {
                        outcome.problems.append("\(list.name): \(user) should be \(permission) \(state), the server has \(held.map { "\($0.permission) \($0.state)" } ?? "nothing")")
                    }
                } else if let held, held.state == "accepted" || held.state == "invited" {
                    outcome.problems.append("\(list.name): \(user) was removed or left, the server has them \(held.state)")
                }
            }
        }
    }

    /// The zone of each of the owner's lists and items outside the default zone.
    private func zonesOfOwnerObjects(_ device: Int) throws -> (lists: [String: String], items: [String: String]) {
        let path = try storePaths(device)[0]
        let queue = try DatabaseQueue(path: path, configuration: { var c = GRDB.Configuration(); c.readonly = true; return c }())
        return try queue.read { db in
            func zones(_ entity: String, _ table: String, _ key: String) throws -> [String: String] {
                guard try db.tableExists("ANIMBUSCLOUDPLACEMENT") else { return [:] }
                let rows = try Row.fetchAll(db, sql: """
                    SELECT o.\(key) AS key, z.ZNAME AS zone FROM \(table) o
                    JOIN ANIMBUSCLOUDPLACEMENT p ON p.ZPK = o.Z_PK AND p.ZENTITY = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = ?)
                    JOIN ANIMBUSCLOUDZONE z ON z.ZKEY = p.ZZONE
                    """, arguments: [entity])
                return Dictionary(rows.map { ($0["key"] as String, $0["zone"] as String) }) { first, _ in first }
            }
            return (try zones("List", "ZLIST", "ZNAME"), try zones("Item", "ZITEM", "ZTITLE"))
        }
    }

    /// Every edit no later change of access could undo is on the owner's devices: the owner's
    /// items and lists unless deleted, a participant's while they kept their access to the
    /// end; deletes likewise.
    func checkSurvival(_ ownerView: DeviceView) {
        for list in lists.values.sorted(by: { $0.name < $1.name }) where !list.deleted && ownerView.lists[list.name] == nil {
            outcome.problems.append("list \(list.name) was never deleted, and is gone")
        }
        for item in items.values.sorted(by: { $0.title < $1.title }) {
            guard let list = lists[item.list], !list.deleted else { continue }
            func kept(_ user: String, since step: Int) -> Bool {
                user == Self.owner || (list.changedAt < step && (list.accessChangedAt[user] ?? 0) < step && list.invited[user] == "read-write"
                    && list.accepted.contains(user) && !list.uncertain)
            }
            if let delete = item.deletedBy {
                if kept(delete.user, since: delete.step), ownerView.items[item.title] != nil {
                    outcome.problems.append("\(item.title) was deleted by \(delete.user), and is back")
                }
            } else if kept(item.user, since: item.step), ownerView.items[item.title] == nil {
                outcome.problems.append("\(item.title), added by \(item.user) to \(item.list), is lost")
            }
        }
    }

    /// Each store file of each device is sound and keeps no unsent work.
    private func checkStores() throws {
        for device in devices.indices {
            for path in try storePaths(device) {
                let queue = try DatabaseQueue(path: path)
                try queue.read { db in
                    let integrity = try String.fetchOne(db, sql: "PRAGMA integrity_check")
                    if integrity != "ok" { outcome.problems.append("\(devices[device].label): integrity_check says \(integrity ?? "nothing")") }
                    for table in ["ANIMBUSCLOUDPENDING", "ANIMBUSCLOUDDELETION", "ANIMBUSCLOUDPARKED"] where try db.tableExists(table) {
                        let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0
                        if count > 0 { outcome.problems.append("\(devices[device].label): \(count) row(s) left in \(table) of \(URL(fileURLWithPath: path).lastPathComponent)") }
                    }
                }
            }
        }
    }

    /// The device's store files, the private one first.
    func storePaths(_ device: Int) throws -> [String] {
        let result = try SyncServer.run(["device", "status", devices[device].path, "--json"])
        try SyncServer.check(result)
        guard let stores = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]] else {
            throw TestFailure("device status of \(devices[device].label) printed no JSON array")
        }
        let paths = stores.compactMap { $0["storePath"] as? String }
        return paths.filter { !$0.contains(".shared.") } + paths.filter { $0.contains(".shared.") }
    }
}
