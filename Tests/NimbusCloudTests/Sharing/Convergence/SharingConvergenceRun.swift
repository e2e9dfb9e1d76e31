import Foundation
import Nimbus
import NimbusTesting

/// Sharing under the convergence harness (issue 25): one seeded run in which an owner with two
/// devices shares lists with two other users (one of them on two devices), every device a
/// `nimbus` process syncing through a ``FaultProxy`` while sync processes and the server are
/// SIGKILLed (``FaultySyncs``), and seeded life events happen between the edits: share (retried
/// after a failure), accept, permission changes, removal and re-invitation, stop sharing,
/// leave, a list deleted, a participant's clock days off.
///
/// At the end (faults off, every device synced until quiet) the owner's devices must be
/// identical; each participant's devices must hold exactly the owner's objects of the zones
/// whose share the server says they accepted; the server must hold every acknowledged share
/// change; every edit that no later change of access could void must have survived (see
/// ``SharingConvergenceRun/checkSurvival(_:)``); and no store keeps unsent work.
final class SharingConvergenceRun: @unchecked Sendable {
    struct Configuration: Sendable {
        var seed: UInt64
        var rounds = 8
    }

    struct Outcome {
        var seed: UInt64
        var problems: [String] = []
        var log: [String] = []
        var faults: [String: Int] = [:]
        var tally = FaultySyncs.Tally()
        var quietAfter = 0
        /// Counts of the life events that were acknowledged (`share`, `accept`, `permission`…).
        var events: [String: Int] = [:]
        /// Local edits refused because the share is read-only.
        var refusedEdits = 0
        var objects = 0
    }

    /// A device: a folder signed in as one user.
    struct Device {
        let label: String
        let user: String
        let path: String
        var isOwner: Bool { user == SharingConvergenceRun.owner }
    }

    static let owner = "alice"
    static let participants = ["bob", "carol"]

    let configuration: Configuration
    var random: SeededGenerator
    let servers: ServerProcesses
    let proxy: FaultProxy
    var devices: [Device] = []
    var outcome: Outcome
    /// What the run did, by list name and item title.
    var lists: [String: SharedList] = [:]
    var items: [String: WrittenItem] = [:]
    /// A logical clock: one step per acknowledged action and per sync round.
    var step = 0
    /// Per device, the step at which its last successful `device sync` started.
    var lastSync: [Int: Int] = [:]
    /// Per device, a faketime offset while its clock is wrong.
    var clocks: [Int: String] = [:]
    var counter = 0

    private init(_ configuration: Configuration, servers: ServerProcesses, proxy: FaultProxy) {
        self.configuration = configuration
        self.servers = servers
        self.proxy = proxy
        random = SeededGenerator(seed: configuration.seed)
        outcome = Outcome(seed: configuration.seed)
    }

    static func run(_ configuration: Configuration) async throws -> Outcome {
        let servers = try await ServerProcesses(devices: 2, otherUsers: ["bob": 2, "carol": 1])
        defer { servers.stop() }
        let proxy = try FaultProxy(upstreamPorts: servers.ports, seed: configuration.seed)
        defer { proxy.stop() }
        let run = SharingConvergenceRun(configuration, servers: servers, proxy: proxy)
        return try await run.perform()
    }

    func log(_ line: String) {
        outcome.log.append(line)
        if ProcessInfo.processInfo.environment["NIMBUS_CONVERGENCE_LOG"] == "live" { print("  [sharing seed \(configuration.seed)] \(line)") }
    }

    private func perform() async throws -> Outcome {
        let model = servers.folder.url.appendingPathComponent("Lists.json")
        try JSONEncoder().encode(try Self.model()).write(to: model)
        let signIns = servers.tokens.enumerated().map { (Self.owner, "a\($0.offset)", $0.element) }
            + Self.participants.flatMap { user in servers.otherTokens[user, default: []].enumerated().map { (user, "\(user.first!)\($0.offset)", $0.element) } }
        for (user, label, token) in signIns {
            let path = servers.folder.url.appendingPathComponent(label).path
            try SyncServer.check(SyncServer.run(["device", "init", path, "--server", proxy.url.absoluteString, "--token", token,
                                                 "--model", model.path, "--container", "lists"]))
            devices.append(Device(label: label, user: user, path: path))
        }
        proxy.faultsEnabled = true
        for round in 0..<configuration.rounds {
            try lifeEvents(round: round)
            for device in devices.indices { try edit(device, operations: Int.random(in: 0...3, using: &random)) }
            try await syncRound(round)
        }
        proxy.faultsEnabled = false
        outcome.faults = proxy.injectedFaults
        clocks = [:]
        for index in servers.ports.indices { try await servers.start(index) }
        try await finishPending()
        if let pass = try FaultySyncs.untilQuiet(devices.map { ($0.label, $0.path) }, log: { log($0) }) {
            outcome.quietAfter = pass
        } else {
            outcome.problems.append("the devices were still changing after 15 passes of device sync")
        }
        try check()
        return outcome
    }

    /// Lists with items, and notes nobody shares; `color` and `note` are what devices edit.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("List") {
                AttributeDescription("name", .string)
                AttributeDescription("color", .string)
                RelationshipDescription("items", to: "Item", inverse: "list", toMany: true, deleteRule: .cascade)
            }
            EntityDescription("Item") {
                AttributeDescription("title", .string)
                AttributeDescription("note", .string)
                RelationshipDescription("list", to: "List", inverse: "items")
            }
        }
    }

    // MARK: Processes

    /// Runs `nimbus` for a device (under its clock, if it is wrong).
    func nimbus(_ arguments: [String], device: Int) throws -> (status: Int32, output: String, error: String) {
        let process = try ConvergenceRun.nimbusProcess(arguments, clock: clocks[device])
        let (output, error) = try process.runCapturingOutput()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self))
    }

    /// Runs `nimbus store <command> <device folder> …`; a failure stops the run (local store
    /// commands do not touch the network, so nothing excuses one) unless `allowingFailure`.
    @discardableResult
    func store(_ device: Int, _ command: String, _ arguments: [String], allowingFailure: Bool = false) throws -> (status: Int32, output: String, error: String) {
        let result = try nimbus(["store", command, devices[device].path] + arguments, device: device)
        if result.status != 0, !allowingFailure {
            throw TestFailure("nimbus store \(command) \(arguments.joined(separator: " ")) failed on \(devices[device].label): \(result.error)")
        }
        return result
    }

    /// `nimbus device sync` on every device at once, under faults; notes which ones completed.
    private func syncRound(_ round: Int) async throws {
        step += 1
        let started = step
        let syncs = try devices.indices.map { index in
            (devices[index].label, try ConvergenceRun.nimbusProcess(["device", "sync", devices[index].path], clock: clocks[index]))
        }
        log("round \(round): syncing every device")
        let tally = try await FaultySyncs.round(syncs, servers: servers, random: &random) { log($0) }
        outcome.tally.syncKills += tally.syncKills
        outcome.tally.serverKills += tally.serverKills
        outcome.tally.failedSyncs += tally.failedSyncs
        for (index, sync) in syncs.enumerated() where sync.1.terminationReason == .exit && sync.1.terminationStatus == 0 {
            lastSync[index] = started
        }
    }

    /// The devices of a user.
    func devices(of user: String) -> [Int] { devices.indices.filter { devices[$0].user == user } }

    func nextValue(_ prefix: String, _ device: Int) -> String {
        counter += 1
        return "\(prefix)-\(devices[device].label)-\(counter)"
    }

    func count(_ event: String) {
        outcome.events[event, default: 0] += 1
    }
}

/// What the run did to a list: its share as last acknowledged, and every change of access
/// made or tried, per user.
struct SharedList {
    let name: String
    /// The owner device that made the list (it shares it: a retried share finishes there).
    let creator: Int
    var shareID: String?
    var url: String?
    /// The participants asked for when sharing, until the share is acknowledged.
    var wanted: [String: String] = [:]
    /// Users invited, with the permission last acknowledged (`read-write`, `read-only`).
    var invited: [String: String] = [:]
    /// Users whose accept was acknowledged since they were last invited.
    var accepted: Set<String> = []
    var removed: Set<String> = []
    var left: Set<String> = []
    var stopped = false
    var deleted = false
    /// Per user, the step of the last change of their access made or tried (a failed
    /// command may still have been applied).
    var accessChangedAt: [String: Int] = [:]
    /// The step of the last change of the share as a whole (stopped, list deleted).
    var changedAt = 0
    /// Whether a share command failed (the server may hold more than the run knows).
    var uncertain = false

    var isShared: Bool { shareID != nil && !stopped && !deleted }
}

/// An item a device inserted, and the delete of it the device acknowledged.
struct WrittenItem {
    let title: String
    let list: String
    let user: String
    let step: Int
    var deletedBy: (user: String, step: Int)?
}
