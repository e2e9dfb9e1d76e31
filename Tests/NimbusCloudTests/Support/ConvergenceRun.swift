import Foundation
import Nimbus
import NimbusCloud
import NimbusTesting

/// One seeded run of the convergence test: device folders edited by `nimbus store …` and synced
/// by `nimbus device sync` processes through a ``FaultProxy``, while sync processes and the
/// server are killed with SIGKILL; then faults stop, every device syncs until quiet, and the
/// replicas are compared with each other and with the ``ConvergenceOracle``.
final class ConvergenceRun: @unchecked Sendable {
    struct Configuration: Sendable {
        var seed: UInt64
        var devices = 4
        /// Adds a device that nobody edits and that syncs by itself, in this process: a
        /// `CloudContainer` with automatic sync and push over a WebSocket through the proxy
        /// (which cuts it). It joins the final sync and comparison like the others.
        var watcher = true
        var rounds = 8
        /// Server processes behind the proxy (more than one needs `postgres`).
        var servers = 1
        var postgres: String?
        /// What apps live through, seeded (see `ConvergenceRun+Life`): a model upgrade
        /// mid-run, a device clock days off, records no device can apply.
        var life = true
    }

    struct Outcome {
        var seed: UInt64
        var problems: [String]
        var log: [String]
        var faults: [String: Int]
        var syncKills = 0
        var serverKills = 0
        var failedSyncs = 0
        var quietAfter = 0
        var objects = 0
        var postgres = false
    }

    let configuration: Configuration
    var random: SeededGenerator
    let servers: ServerProcesses
    let proxy: FaultProxy
    var devices: [String] = []
    var oracle = ConvergenceOracle()
    private var counter = 0
    /// The in-process device that syncs by itself (see ``Configuration/watcher``).
    private var watcher: CloudContainer?
    var outcome: Outcome
    /// The run's life events (see `ConvergenceRun+Life`).
    var life = ConvergenceLife()

    private init(_ configuration: Configuration, servers: ServerProcesses, proxy: FaultProxy) {
        self.configuration = configuration
        self.servers = servers
        self.proxy = proxy
        random = SeededGenerator(seed: configuration.seed)
        outcome = Outcome(seed: configuration.seed, problems: [], log: [], faults: [:], postgres: configuration.postgres != nil)
        if configuration.life, Bool.random(using: &random) { life.upgradeRound = Int.random(in: 1..<max(2, configuration.rounds - 1), using: &random) }
    }

    static func run(_ configuration: Configuration) async throws -> Outcome {
        // A token per device, the watcher's, and one for another client of the same user.
        let servers = try await ServerProcesses(devices: configuration.devices + 2, count: configuration.servers, postgres: configuration.postgres)
        defer { servers.stop() }
        let proxy = try FaultProxy(upstreamPorts: servers.ports, seed: configuration.seed)
        defer { proxy.stop() }
        let run = ConvergenceRun(configuration, servers: servers, proxy: proxy)
        return try await run.perform()
    }

    func log(_ line: String) {
        outcome.log.append(line)
        // `NIMBUS_CONVERGENCE_LOG=live` prints as it goes (a run that stops keeps no log).
        if ProcessInfo.processInfo.environment["NIMBUS_CONVERGENCE_LOG"] == "live" { print("  [seed \(configuration.seed)] \(line)") }
    }

    private func perform() async throws -> Outcome {
        let model = servers.folder.url.appendingPathComponent("Convergence.json")
        try ConvergenceModel.write(to: model)
        for index in 0..<configuration.devices {
            let directory = servers.folder.url.appendingPathComponent("device\(index)").path
            try SyncServer.check(SyncServer.run(["device", "init", directory, "--server", proxy.url.absoluteString,
                                                 "--token", servers.tokens[index], "--model", model.path]))
            devices.append(directory)
        }
        let editors = devices.indices
        if configuration.watcher {
            let directory = servers.folder.url.appendingPathComponent("watcher").path
            try SyncServer.check(SyncServer.run(["device", "init", directory, "--server", proxy.url.absoluteString,
                                                 "--token", servers.tokens[configuration.devices], "--model", model.path]))
            devices.append(directory)
            let container = CloudContainer(name: "watcher", managedObjectModel: try JSONDecoder().decode(
                ManagedObjectModel.self, from: Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent("model.json"))))
            container.automaticallySyncs = true
            var description = PersistentStoreDescription(url: URL(fileURLWithPath: try SyncServer.storePath(directory)))
            description.cloudContainerOptions = CloudContainerOptions(serverURL: proxy.url, containerIdentifier: "nimbus",
                                                                      token: servers.tokens[configuration.devices])
            container.persistentStoreDescriptions = [description]
            try await container.loadPersistentStores()
            watcher = container
        }
        proxy.faultsEnabled = true
        var offline = Array(repeating: 0, count: devices.count)
        for round in 0..<configuration.rounds {
            try await lifeEvents(round: round)
            for device in editors {
                // A device goes offline for a few rounds now and then (it edits, but does not sync).
                if offline[device] == 0, Double.random(in: 0..<1, using: &random) < 0.15 { offline[device] = Int.random(in: 1...3, using: &random) }
                try edit(device, operations: Int.random(in: 0...3, using: &random))
            }
            let online = editors.filter { offline[$0] == 0 }
            log("round \(round): syncing \(online), offline \(devices.indices.filter { offline[$0] > 0 })")
            try await syncUnderFaults(online)
            offline = offline.map { max(0, $0 - 1) }
        }
        if let watcher {
            await watcher.stopSyncing()
            for store in watcher.persistentStoreCoordinator.persistentStores { try watcher.persistentStoreCoordinator.removePersistentStore(store) }
            self.watcher = nil
        }
        proxy.faultsEnabled = false
        outcome.faults = proxy.injectedFaults
        for index in servers.ports.indices { try await servers.start(index) }
        try finishLife()
        try await syncUntilQuiet()
        try check()
        try checkLife()
        return outcome
    }

    // MARK: Edits

    private func store(_ device: Int, _ arguments: [String]) throws -> String {
        let result = try runNimbus(["store"] + [arguments[0], devices[device]] + arguments.dropFirst(), device: device)
        guard result.status == 0 else { throw TestFailure("nimbus store \(arguments.joined(separator: " ")) failed on d\(device): \(result.error)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func content(_ device: Int) throws -> ReplicaContent {
        var fetched: [String: Data] = [:]
        for entity in ["Post", "Category", "Tag"] {
            fetched[entity] = Data(try store(device, ["fetch", entity, "--json"]).utf8)
        }
        return try ReplicaContent(fetched: fetched)
    }

    private func nextValue(_ prefix: String, _ device: Int) -> String {
        counter += 1
        return "\(prefix)-d\(device)-w\(counter)"
    }

    /// Makes `operations` random edits on a device, each a `nimbus store` process.
    private func edit(_ device: Int, operations: Int) throws {
        guard operations > 0 else { return }
        var view = try content(device)
        for _ in 0..<operations {
            let roll = Int.random(in: 0..<100, using: &random)
            let posts = view.posts, categories = view.categories, tags = view.tags
            func pick(_ keys: [String]) -> String { keys.randomElement(using: &random)! }
            func name(_ key: String) -> String { String(key.split(separator: "/")[1]) }
            if roll < 25 || posts.isEmpty {
                counter += 1
                let key = "Post/p\(device)-\(counter)"
                let body = nextValue("body", device), views = String(device * 1_000_000 + counter)
                var arguments = ["insert", "Post", "title=\(name(key))", "body=\(body)", "views=\(views)"]
                var category = "nil"
                if !categories.isEmpty, Bool.random(using: &random) {
                    let chosen = pick(categories)
                    category = name(chosen)
                    arguments.append("category=\(view.uris[chosen]!)")
                }
                let linked = Array(Set((0..<Int.random(in: 0...2, using: &random)).compactMap { _ in tags.randomElement(using: &random) }))
                if !linked.isEmpty { arguments.append("tags=" + linked.map { view.uris[$0]! }.joined(separator: ",")) }
                view.uris[key] = try store(device, arguments)
                view.objects[key] = ["body": body, "views": views, "category": category == "nil" ? "nil" : "Category/\(category)",
                                     "tags": linked.sorted().joined(separator: ",")]
                oracle.insert(key, by: device, fields: ["body": body, "views": views, "category": category], memberships: linked.map(name))
                log("d\(device) insert \(key)")
            } else if roll < 33 {
                counter += 1
                let key = "Category/c\(device)-\(counter)", color = nextValue("color", device)
                view.uris[key] = try store(device, ["insert", "Category", "name=\(name(key))", "color=\(color)"])
                view.objects[key] = ["color": color]
                oracle.insert(key, by: device, fields: ["color": color])
                log("d\(device) insert \(key)")
            } else if roll < 41 {
                let missing = (0..<6).map { "Tag/t\($0)" }.filter { view.objects[$0] == nil }
                guard let key = missing.randomElement(using: &random) else { continue }
                let note = nextValue("note", device)
                view.uris[key] = try store(device, ["insert", "Tag", "name=\(name(key))", "note=\(note)"])
                view.objects[key] = ["note": note]
                oracle.insert(key, by: device, fields: ["note": note])
                log("d\(device) insert \(key)")
            } else if roll < 76 {
                let key = pick(posts)
                let predicate = "title == '\(name(key))'"
                switch Int.random(in: 0..<4, using: &random) {
                case 0, 1:
                    var field = Bool.random(using: &random) ? "body" : "views"
                    // A device on the upgraded model writes the field the upgrade added.
                    if life.upgraded.contains(device), Double.random(in: 0..<1, using: &random) < 0.3 { field = "mood" }
                    counter += 1
                    let value = switch field {
                    case "body": "body-d\(device)-w\(counter)"
                    case "mood": String((device * 1000 + counter) % 30_000)
                    default: String(device * 1_000_000 + counter)
                    }
                    _ = try store(device, ["update", "Post", "--predicate", predicate, "\(field)=\(value)"])
                    view.objects[key]![field] = value
                    oracle.update(key, field: field, to: value, by: device)
                    log("d\(device) update \(key).\(field)=\(value)")
                case 2:
                    let current = view.objects[key]!["category"] ?? "nil"
                    let choice = (categories + ["nil"]).randomElement(using: &random)!
                    guard choice != current else { continue }
                    _ = try store(device, ["update", "Post", "--predicate", predicate, "category=\(choice == "nil" ? "" : view.uris[choice]!)"])
                    view.objects[key]!["category"] = choice
                    oracle.update(key, field: "category", to: choice == "nil" ? "nil" : name(choice), by: device)
                    log("d\(device) update \(key).category=\(choice)")
                default:
                    guard !tags.isEmpty else { continue }
                    let tag = pick(tags)
                    var linked = Set((view.objects[key]!["tags"] ?? "").split(separator: ",").map(String.init))
                    let adding = !linked.contains(tag)
                    if adding { linked.insert(tag) } else { linked.remove(tag) }
                    _ = try store(device, ["update", "Post", "--predicate", predicate, "tags=" + linked.map { view.uris[$0]! }.joined(separator: ",")])
                    view.objects[key]!["tags"] = linked.sorted().joined(separator: ",")
                    oracle.update("\(key)/tags", field: name(tag), to: adding ? "1" : "0", by: device)
                    log("d\(device) \(adding ? "link" : "unlink") \(key) \(tag)")
                }
            } else if roll < 84, !categories.isEmpty {
                let key = pick(categories), color = nextValue("color", device)
                _ = try store(device, ["update", "Category", "--predicate", "name == '\(name(key))'", "color=\(color)"])
                view.objects[key]!["color"] = color
                oracle.update(key, field: "color", to: color, by: device)
                log("d\(device) update \(key).color=\(color)")
            } else if roll < 90, !tags.isEmpty {
                let key = pick(tags), note = nextValue("note", device)
                _ = try store(device, ["update", "Tag", "--predicate", "name == '\(name(key))'", "note=\(note)"])
                view.objects[key]!["note"] = note
                oracle.update(key, field: "note", to: note, by: device)
                log("d\(device) update \(key).note=\(note)")
            } else if roll < 96 {
                let key = pick(posts)
                _ = try store(device, ["delete", "Post", "--predicate", "title == '\(name(key))'"])
                view.objects[key] = nil
                oracle.delete(key)
                log("d\(device) delete \(key)")
            } else if roll < 98, !categories.isEmpty {
                let key = pick(categories)
                _ = try store(device, ["delete", "Category", "--predicate", "name == '\(name(key))'"])
                view.objects[key] = nil
                oracle.delete(key)
                // The delete rule clears the category of this device's posts: edits of theirs.
                for post in view.posts where view.objects[post]!["category"] == key {
                    view.objects[post]!["category"] = "nil"
                    oracle.update(post, field: "category", to: "nil", by: device)
                }
                log("d\(device) delete \(key)")
            } else if !tags.isEmpty {
                let key = pick(tags)
                _ = try store(device, ["delete", "Tag", "--predicate", "name == '\(name(key))'"])
                view.objects[key] = nil
                oracle.delete(key)
                for post in view.posts {
                    view.objects[post]!["tags"] = (view.objects[post]!["tags"] ?? "").split(separator: ",").filter { $0 != key }.joined(separator: ",")
                }
                log("d\(device) delete \(key)")
            }
        }
    }
}
