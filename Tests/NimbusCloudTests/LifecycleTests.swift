import Foundation
import GRDB
import Nimbus
@testable import NimbusCloud
import NimbusTesting
import NimbusWire
import Synchronization
import Testing

/// Issue 24, item 9: `syncNow()` reports what was exchanged whichever pass did it; automatic
/// sync stops and starts any number of times; no engine task outlives its store; the
/// membership table is indexed for both ends.
@Suite("Lifecycle: syncNow's report, stop and start, engine tasks, metadata indexes", .serialized)
struct LifecycleTests {
    /// The first event `matching`, or a failure after `limit` (a guard against hanging, not a
    /// measurement).
    static func event(_ events: AsyncStream<CloudEvent>, within limit: Duration = .seconds(60),
                      _ matching: @escaping @Sendable (CloudEvent) -> Bool) async throws -> CloudEvent {
        try await withThrowingTaskGroup(of: CloudEvent?.self) { group in
            group.addTask {
                for await event in events where matching(event) { return event }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            guard let first else { throw TestFailure("the awaited event did not come") }
            return first
        }
    }

    /// Waits until `condition` holds, yielding between checks; fails after `limit`.
    static func eventually(within limit: Duration = .seconds(60), _ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while !(await condition()) {
            guard ContinuousClock.now < deadline else { throw TestFailure("the condition never held") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Whether the container's first automatic sync ended well.
    static func hasSynced(_ container: CloudContainer) -> Bool {
        ((try? container.syncStatus()) ?? []).contains { $0.lastSync != nil }
    }

    static func cloudStore(_ container: CloudContainer) throws -> PersistentStore {
        try #require(container.persistentStoreCoordinator.persistentStores.first { $0.storeDescription.cloudContainerOptions != nil })
    }

    @Test("stopSyncing then startSyncing, three times: each save still goes out by itself")
    func stopStart() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        let model = try SyncModel.make()
        let a = try Device(server: server, token: server.tokens[0], model: model, automatic: true)
        let b = try Device(server: server, token: server.tokens[1], model: model)
        for round in 0..<3 {
            await a.container.stopSyncing()
            await a.container.startSyncing()
            let events = a.container.events
            try await a.insertTag("t\(round)")
            _ = try await Self.event(events) { $0.kind == .export && $0.phase == .ended && $0.error == nil && $0.recordCount > 0 }
        }
        await a.container.stopSyncing()
        try await b.container.syncNow()
        #expect(try await b.snapshot("Tag", key: "name").keys.sorted() == ["t0", "t1", "t2"])
    }

    @Test("syncNow called while the automatic pass is exporting reports what that pass exported")
    func syncNowCountsTheRunningPass() async throws {
        let server = try await SyncServer(devices: 1)
        defer { server.stop() }
        let folder = try TemporaryDirectory()
        let container = CloudContainer(name: "a", managedObjectModel: try SyncModel.make())
        container.automaticallySyncs = false
        let gate = ModifyGate()
        container.makeTransport = { options in GatedTransport(base: HTTPTransport(options: options), gate: gate) }
        var cloud = PersistentStoreDescription(url: folder.url.appendingPathComponent("Cloud.sqlite"))
        cloud.configuration = "Cloud"
        cloud.cloudContainerOptions = CloudContainerOptions(serverURL: server.url, containerIdentifier: "app", token: server.tokens[0])
        container.persistentStoreDescriptions = [cloud]
        try await container.loadPersistentStores()
        let device = Device.wrapping(container, folder: folder)
        for name in ["a", "b", "c"] { try await device.insertTag(name) }

        gate.close()
        await container.startSyncing()   // the automatic pass starts exporting, and waits at the gate
        await gate.reached()
        let engine = try #require(container.engines.first)
        let calls = await engine.syncCalls
        let report = Task { try await container.syncNow() }
        try await Self.eventually { await engine.syncCalls > calls }   // syncNow is queued behind the pass
        gate.open()
        let summary = try await report.value
        #expect(summary.exported == 3)
        await container.stopSyncing()
    }

    @Test("signing out removes the account's store and its engine: no task of the engine is left")
    func engineEndsWithItsStore() async throws {
        let server = try await SyncServer(devices: 1)
        defer { server.stop() }
        let folder = try TemporaryDirectory()
        let container = CloudContainer(name: "a", managedObjectModel: try SyncModel.make())
        container.automaticallySyncs = true
        container.setsUpAccountStoresAsynchronously = false
        let accounts = try SavedAccountProvider(file: nil)
        try accounts.signIn(CloudAccount(identifier: "alice", token: server.tokens[0]))
        container.accountProvider = accounts
        var cloud = PersistentStoreDescription(url: folder.url.appendingPathComponent("Cloud.sqlite"))
        cloud.configuration = "Cloud"
        cloud.cloudContainerOptions = CloudContainerOptions(serverURL: server.url, containerIdentifier: "app", token: "")
        container.persistentStoreDescriptions = [cloud]
        try await container.loadPersistentStores()
        try await Self.eventually { Self.hasSynced(container) }   // the loop and push run
        weak let engine = container.engines.first
        #expect(engine != nil)
        try await container.switchAccount(to: nil)
        #expect(engine == nil)   // its loop, push listener and sync all ended with the store
    }

    @Test("a store removed from the coordinator, and a container released, take their engines' tasks with them")
    func engineEndsWithoutTheContainer() async throws {
        let server = try await SyncServer(devices: 2)
        defer { server.stop() }
        let model = try SyncModel.make()
        var a: Device? = try Device(server: server, token: server.tokens[0], model: model, automatic: true)
        let b = try Device(server: server, token: server.tokens[1], model: model, automatic: true)
        for device in [a!, b] {
            try await Self.eventually { Self.hasSynced(device.container) }
        }
        weak let removed = b.container.engines.first
        try b.container.persistentStoreCoordinator.removePersistentStore(try Self.cloudStore(b.container))
        #expect(b.container.engines.isEmpty)
        try await Self.eventually { removed == nil }

        weak let released = a!.container.engines.first
        #expect(released != nil)
        a = nil
        try await Self.eventually { released == nil }
    }

    @Test("the membership table is indexed for both ends, in new stores and in stores made before the indexes")
    func linkIndexes() async throws {
        let server = try await SyncServer(devices: 1)
        defer { server.stop() }
        let folder = try TemporaryDirectory()
        let model = try SyncModel.make()
        do {
            let a = try Device(server: server, token: server.tokens[0], model: model, folder: folder)
            try await a.insertTag("swift")
            _ = a
        }
        let path = folder.url.appendingPathComponent("Cloud.sqlite").path
        let lookups = [
            "DELETE FROM ANIMBUSCLOUDLINK WHERE (ZFIRSTENTITY = 1 AND ZFIRSTPK = 2) OR (ZSECONDENTITY = 1 AND ZSECONDPK = 2)",
            "SELECT ZFIRSTENTITY, ZFIRSTPK FROM ANIMBUSCLOUDLINK WHERE ZRELATIONSHIP = 'k' AND ZSECONDENTITY = 1 AND ZSECONDPK = 2 AND ZLINKED = 1",
            "SELECT ZSECONDENTITY, ZSECONDPK FROM ANIMBUSCLOUDLINK WHERE ZRELATIONSHIP = 'k' AND ZFIRSTENTITY = 1 AND ZFIRSTPK = 2 AND ZLINKED = 1",
        ]
        // The device's engine may still be writing its last sync: wait for locks.
        var waiting = GRDB.Configuration()
        waiting.busyMode = .timeout(30)
        func plans() throws -> [String] {
            let queue = try DatabaseQueue(path: path, configuration: waiting)
            return try queue.read { db in
                try lookups.map { sql in try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql).map { $0["detail"] as String }.joined(separator: "; ") }
            }
        }
        func expectIndexed(_ plans: [String]) {
            for plan in plans { #expect(!plan.contains("SCAN"), "\(plan)") }
            #expect(plans[0].contains("ZFIRSTENTITY=?") && plans[0].contains("ZSECONDENTITY=?"), "\(plans[0])")
            #expect(plans[1].contains("ZSECONDENTITY=? AND ZSECONDPK=?"), "\(plans[1])")
            #expect(plans[2].contains("ZFIRSTENTITY=? AND ZFIRSTPK=?"), "\(plans[2])")
        }
        expectIndexed(try plans())

        // A store made before the indexes: they come at its next load.
        let queue = try DatabaseQueue(path: path, configuration: waiting)
        try await queue.write { db in try db.execute(sql: "DROP INDEX ANIMBUSCLOUDLINK_FIRST; DROP INDEX ANIMBUSCLOUDLINK_SECOND") }
        try queue.close()
        #expect(try plans().contains { $0.contains("SCAN") })
        let again = try Device(server: server, token: server.tokens[0], model: model, folder: folder)
        expectIndexed(try plans())
        _ = again
    }
}

/// A gate that holds modify requests while closed, and tells when one reached it.
final class ModifyGate: Sendable {
    private let state = Mutex<(closed: Bool, waiting: [CheckedContinuation<Void, Never>], reached: [CheckedContinuation<Void, Never>], hits: Int)>((false, [], [], 0))

    func close() { state.withLock { $0.closed = true } }

    func open() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.closed = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Returns once a request waits at the gate.
    func reached() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.hits > 0 { return true }
                state.reached.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func pass() async {
        await withCheckedContinuation { continuation in
            let (go, reached) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                guard state.closed else { return (true, []) }
                state.hits += 1
                state.waiting.append(continuation)
                defer { state.reached = [] }
                return (false, state.reached)
            }
            for waiter in reached { waiter.resume() }
            if go { continuation.resume() }
        }
    }
}

/// The HTTP transport with its modify requests held at a ``ModifyGate``.
struct GatedTransport: CloudTransport {
    let base: HTTPTransport
    let gate: ModifyGate

    func checkServer() async throws { try await base.checkServer() }
    func account() async throws -> AccountResponse { try await base.account() }
    func createZone(_ zone: ZoneID) async throws { try await base.createZone(zone) }
    func deleteZone(_ zone: ZoneID) async throws { try await base.deleteZone(zone) }
    func modify(_ request: ModifyRecordsRequest, in zone: ZoneID) async throws -> ModifyRecordsResponse {
        await gate.pass()
        return try await base.modify(request, in: zone)
    }
    func fetchChanges(_ request: FetchZoneChangesRequest, in zone: ZoneID) async throws -> FetchZoneChangesResponse {
        try await base.fetchChanges(request, in: zone)
    }
    func lookup(_ names: [String], in zone: ZoneID) async throws -> [LookupResult] { try await base.lookup(names, in: zone) }
    func uploadAsset(_ data: Data) async throws -> AssetReference { try await base.uploadAsset(data) }
    func downloadAsset(_ asset: AssetReference) async throws -> Data { try await base.downloadAsset(asset) }
    func pushMessages() -> AsyncThrowingStream<PushMessage, any Error> { base.pushMessages() }
}
