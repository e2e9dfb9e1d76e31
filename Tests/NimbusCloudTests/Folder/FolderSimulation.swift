import Foundation
import Nimbus
@testable import NimbusCloud
import NimbusTesting

/// A seeded run of folder sync: devices each with their own copy of the shared folder, a file
/// service between them that delays, duplicates (as conflicted copies), delivers in part,
/// propagates compaction's deletions late, and a folder that goes missing; devices edit,
/// delete and sync meanwhile. Then the service delivers everything, every device syncs until
/// quiet, and the replicas are compared with each other and with what was done.
///
/// The schedule (edits, syncs, faults) follows the seed; stamps and ids differ between runs.
final class FolderSimulation: @unchecked Sendable {
    struct Configuration: Sendable {
        var seed: UInt64
        var devices = 3
        var rounds = 8
        /// Adds a device halfway, from an empty folder.
        var lateDevice = true
    }

    struct Outcome: Sendable {
        var seed: UInt64
        var problems: [String] = []
        var faults: [String: Int] = [:]
        var failedSyncs = 0
        var objects = 0
    }

    let configuration: Configuration
    var random: SeededGenerator
    var outcome: Outcome
    var folders: [TemporaryDirectory] = []
    var devices: [Device] = []
    var peers: [String] = []
    /// What was done: posts made (title → initial body), deleted, and single edits.
    var made: Set<String> = []
    var deleted: Set<String> = []
    var edits: [String: [String]] = [:]   // "title.field" → values written
    var counter = 0

    init(_ configuration: Configuration) {
        self.configuration = configuration
        random = SeededGenerator(seed: configuration.seed)
        outcome = Outcome(seed: configuration.seed)
    }

    static func run(_ configuration: Configuration) async throws -> Outcome {
        let simulation = FolderSimulation(configuration)
        try await simulation.perform()
        return simulation.outcome
    }

    func fault(_ name: String) { outcome.faults[name, default: 0] += 1 }

    private func perform() async throws {
        let model = try SyncModel.make()
        for _ in 0..<configuration.devices { try await addDevice(model) }
        for round in 0..<configuration.rounds {
            if configuration.lateDevice && round == configuration.rounds / 2 {
                // A device joins late, from an empty folder: it starts from the baselines (its
                // peers compacted logs it never saw) and the logs after them.
                fault("late device")
                try await addDevice(model)
            }
            for index in devices.indices { try await act(index) }
            for index in devices.indices where Bool.random(using: &random) { await sync(index, faults: true) }
            try deliver(faults: true)
        }
        // Quiet: everything delivered, everyone syncs until nothing moves.
        for _ in 0..<4 {
            try deliver(faults: false)
            for index in devices.indices { await sync(index, faults: false) }
        }
        try deliver(faults: false)
        for index in devices.indices { await sync(index, faults: false) }
        try await compare()
    }

    // MARK: Devices

    private func addDevice(_ model: ManagedObjectModel) async throws {
        let folder = try TemporaryDirectory()
        folders.append(folder)
        let device = try FolderDevices.device(folder.url, model: model, name: "d\(devices.count)", compactionThreshold: 4)
        devices.append(device)
        try await device.container.syncNow()
        peers.append(try await device.folderTransport.account().deviceID)
    }

    private func act(_ index: Int) async throws {
        let device = devices[index]
        let titles = try await device.posts().keys.sorted()
        counter += 1
        let value = "v\(counter)"
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<3:
            let title = "p\(counter)"
            made.insert(title)
            try await device.edit { context in
                let post = try context.insertNewObject(forEntityName: "Post")
                post.setValue(title, forKey: "title")
                post.setValue(value, forKey: "body")
            }
            edits["\(title).body", default: []].append(value)
        case 3..<7 where !titles.isEmpty:
            let title = titles.randomElement(using: &random)!
            let field = Bool.random(using: &random) ? "body" : "views"
            let views = counter
            try await device.edit { context in
                var request = FetchRequest<ManagedObject>(entityName: "Post")
                request.predicate = try QueryPredicate(format: "title == %@", title)
                guard let post = try context.fetch(request).first else { return }
                if field == "body" { post.setValue(value, forKey: "body") } else { post.setValue(views, forKey: "views") }
            }
            edits["\(title).\(field)", default: []].append(field == "body" ? value : "\(views)")
        case 7 where !titles.isEmpty:
            let title = titles.randomElement(using: &random)!
            deleted.insert(title)
            try await device.edit { context in
                var request = FetchRequest<ManagedObject>(entityName: "Post")
                request.predicate = try QueryPredicate(format: "title == %@", title)
                for post in try context.fetch(request) { context.delete(post) }
            }
        default:
            // A tag from a small set: the same unique key made on several devices.
            let name = "t\(Int.random(in: 0..<3, using: &random))"
            let existing = try await device.snapshot("Tag", key: "name")
            if existing[name] == nil { try await device.insertTag(name) }
        }
    }

    private func sync(_ index: Int, faults: Bool) async {
        let folder = folders[index].url
        let away = folder.deletingLastPathComponent().appendingPathComponent(folder.lastPathComponent + "-away")
        let missing = faults && Int.random(in: 0..<12, using: &random) == 0
        if missing {
            fault("folder missing")
            try? FileManager.default.moveItem(at: folder, to: away)
        }
        do {
            try await devices[index].container.syncNow()
            let report = devices[index].folderTransport.lastImport
            if report.baselines > 0 { outcome.faults["(baseline imported)", default: 0] += report.baselines }
            if report.divergentCopies > 0 { outcome.faults["(divergent copy)", default: 0] += report.divergentCopies }
        } catch {
            outcome.failedSyncs += 1
            if !missing { outcome.problems.append("d\(index): sync failed with the folder present: \(error)") }
        }
        if missing { try? FileManager.default.moveItem(at: away, to: folder) }
    }

    // MARK: The file service

    /// Copies each peer's files from its owner's folder to the others (with faults), assets
    /// and the marker from wherever they are, and compaction's removals late.
    private func deliver(faults: Bool) throws {
        for (owner, peer) in peers.enumerated() {
            let source = folders[owner].url
            let files = FolderCopier.files(source).filter { $0.hasPrefix("peers/\(peer)/") && !$0.contains("/.tmp-") }
            for target in folders.indices where target != owner {
                let destination = folders[target].url
                for path in files {
                    let data = try Data(contentsOf: source.appendingPathComponent(path))
                    let url = destination.appendingPathComponent(path)
                    if (try? Data(contentsOf: url)) == data { continue }
                    let isLog = path.contains("/logs/")
                    let roll = faults ? Int.random(in: 0..<10, using: &random) : 9
                    if roll < 2 { fault("delayed"); continue }
                    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                    if roll == 2 && isLog {
                        fault("partial")
                        try data.prefix(data.count / 2).write(to: url)
                        continue
                    }
                    try data.write(to: url)
                    if roll == 3 && isLog {
                        fault("conflicted copy")
                        try data.write(to: URL(fileURLWithPath: url.path.replacingOccurrences(of: ".nlog", with: " (1).nlog")))
                    }
                }
                // Logs the owner compacted go late.
                let present = Set(files)
                for path in FolderCopier.files(destination) where path.hasPrefix("peers/\(peer)/logs/") && !present.contains(path)
                    && LogName((path as NSString).lastPathComponent)?.isCopy == false {
                    if faults && Bool.random(using: &random) { continue }
                    fault("compacted log removed")
                    try FileManager.default.removeItem(at: destination.appendingPathComponent(path))
                }
            }
        }
        for source in folders.indices {
            for path in FolderCopier.files(folders[source].url) where path.hasPrefix("assets/") || path == "nimbus-folder.json" {
                for target in folders.indices where target != source {
                    let url = folders[target].url.appendingPathComponent(path)
                    if FileManager.default.fileExists(atPath: url.path) { continue }
                    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try FileManager.default.copyItem(at: folders[source].url.appendingPathComponent(path), to: url)
                }
            }
        }
    }

    // MARK: Comparison

    private func compare() async throws {
        var snapshots: [[String: [String: String]]] = []
        var tags: [[String]] = []
        for device in devices {
            snapshots.append(try await device.posts())
            tags.append(try await device.snapshot("Tag", key: "name").keys.sorted())
        }
        outcome.objects = snapshots[0].count
        for index in devices.indices.dropFirst() {
            if snapshots[index] != snapshots[0] { outcome.problems.append("d\(index)'s posts differ from d0's: \(snapshots[index]) vs \(snapshots[0])") }
            if tags[index] != tags[0] { outcome.problems.append("d\(index)'s tags differ from d0's: \(tags[index]) vs \(tags[0])") }
        }
        let posts = snapshots[0]
        for title in made.subtracting(deleted) where posts[title] == nil { outcome.problems.append("post \(title) was never deleted but is gone") }
        for title in deleted where posts[title] != nil { outcome.problems.append("post \(title) was deleted but is back") }
        for (key, values) in edits where values.count == 1 {
            let parts = key.split(separator: ".").map(String.init)
            guard let post = posts[parts[0]] else { continue }
            if post[parts[1]] != values[0] { outcome.problems.append("the only edit of \(key) (\(values[0])) was lost: \(post[parts[1]] ?? "nil")") }
        }
        for index in devices.indices {
            let status = try devices[index].container.syncStatus()
            let parked = status.reduce(0) { $0 + $1.parkedRecords }, pending = status.reduce(0) { $0 + $1.pendingUploads }
            if parked + pending > 0 { outcome.problems.append("d\(index) still has \(pending) pending and \(parked) parked") }
        }
    }
}
