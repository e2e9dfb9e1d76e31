import Foundation
import GRDB
import Logging
import Nimbus
import NimbusWire
import Synchronization

/// Drives the mirroring of one store: sets it up, exports soon after local saves, imports
/// on push and at launch, and retries by ``SyncPolicy`` after failures. The work itself is
/// the exporter's and importer's; this actor only decides when, and reports events.
actor MirrorEngine {
    let mirror: StoreMirror
    private let emit: @Sendable (CloudEvent) -> Void
    private var isSetUp = false
    private var failures = 0
    private var loop: Task<Void, Never>?
    private var push: Task<Void, Never>?
    private var retry: Task<Void, Never>?
    private var observer: (any NSObjectProtocol)?
    /// The wake-ups of the sync loop running now (`nil` when stopped). Each start makes a new
    /// stream: a stream whose reader was cancelled is finished for good, so reusing it left
    /// a restarted engine asleep until relaunch.
    private let wake = Mutex<AsyncStream<Void>.Continuation?>(nil)
    /// What every pass exchanged so far, counted as each half ends (see ``sync()``).
    private var exchanged = Summary()
    /// ``exchanged`` when the pass running now started (`nil` between passes).
    private var passBaseline: Summary?
    /// How many times ``sync()`` was called (tests wait on it to know a caller is queued).
    private(set) var syncCalls = 0

    init(mirror: StoreMirror, emit: @escaping @Sendable (CloudEvent) -> Void) {
        self.mirror = mirror
        self.emit = emit
    }

    var storeIdentifier: String { mirror.store.identifier }

    /// What one sync did.
    struct Summary: Sendable {
        var exported = 0
        var imported = 0
        var deleted = 0
        var conflicts = 0
        /// Records set aside in this sync's import (see ``Quarantine``).
        var quarantined = 0

        /// What was exchanged since `earlier` (both running totals).
        func since(_ earlier: Summary) -> Summary {
            Summary(exported: exported - earlier.exported, imported: imported - earlier.imported, deleted: deleted - earlier.deleted,
                    conflicts: conflicts - earlier.conflicts, quarantined: quarantined - earlier.quarantined)
        }
    }

    // MARK: Setup

    func setUp() async throws {
        if isSetUp { return }
        let started = CloudEvent(kind: .setup, phase: .started, storeIdentifier: storeIdentifier, recordCount: 0)
        emit(started)
        func ended(_ count: Int, _ error: CloudError? = nil) -> CloudEvent {
            var event = started
            event.phase = .ended
            event.recordCount = count
            event.error = error
            event.date = Date()
            event.endDate = event.date
            return event
        }
        do {
            try await mirror.transport.checkServer()
            let ready = try mirror.store.readTransaction { db in Bool.fromDatabaseValue(try SyncMetadata.state(.zoneReady, db)) ?? false }
            if !ready && mirror.options.databaseScope != .shared {
                try await mirror.transport.createZone(mirror.zoneID)
                try mirror.store.writeTransaction { db in try SyncMetadata.setState(.zoneReady, true, db) }
            }
            let captured = try mirror.store.writeTransaction { db in try mirror.capture.capture(db) }
            isSetUp = true
            emit(ended(captured))
        } catch {
            let cloudError = Self.cloudError(error)
            emit(ended(0, cloudError))
            throw cloudError
        }
    }

    // MARK: Syncing

    /// The sync running now; the next one waits for it (an actor lets calls interleave at
    /// each `await`, and two syncs of one store must not).
    private var running: Task<Summary, any Error>?

    /// Exports, imports and exports again until nothing is pending, after the pass running
    /// now (an automatic one, or another caller's). Returns everything exchanged from the
    /// start of the pass running when it was called (or from the call, when none was) to the
    /// end of its own: what an automatic pass sent a moment earlier is reported here, not
    /// lost between two callers.
    func sync() async throws -> Summary {
        syncCalls += 1
        let baseline = passBaseline ?? exchanged
        let previous = running
        let task = Task {
            _ = try? await previous?.value
            return try await self.syncSerially()
        }
        running = task
        _ = try await task.value
        return exchanged.since(baseline)
    }

    /// Runs `work` between syncs (sharing moves objects between zones this way).
    func exclusively<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await serially(work)
    }

    /// Runs `work` after the sync or reset running now, and before the next.
    private func serially<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let previous = running
        let task = Task<T, any Error> {
            _ = try? await previous?.value
            return try await work()
        }
        running = Task { _ = try? await task.value; return Summary() }
        return try await task.value
    }

    /// Empties the replica and imports the zone again (pending changes are refused unless
    /// `discardingPendingChanges`).
    func rebuild(discardingPendingChanges: Bool) async throws -> Summary {
        try await serially {
            try await self.setUp()
            let pending = try self.mirror.store.writeTransaction { db in
                try self.mirror.capture.capture(db)
                return try SyncMetadata.pendingCount(db)
            }
            if pending > 0 && !discardingPendingChanges {
                throw CloudError(.pendingChanges, "\(pending) change(s) of this store are not on the server yet; sync first, "
                    + "or rebuild discarding them")
            }
            try await ReplicaReset(mirror: self.mirror).wipe()
            return try await self.syncSerially()
        }
    }

    /// Deletes the zone on the server (every record, in one step), starts a new epoch there
    /// and empties this replica; other devices remove theirs when they next sync.
    func eraseCloudContent() async throws {
        // A shared store holds other users' zones: not this user's to erase.
        guard mirror.options.databaseScope != .shared else { return }
        try await serially {
            try await self.setUp()
            // The zones this store's objects were shared from go too (their participants lose them).
            for zone in try self.mirror.store.readTransaction({ db in try Placement.zones(db) }) {
                do { try await self.mirror.transport.deleteZone(zone.zoneID) } catch let error as CloudError where error.code == .zoneNotFound {}
            }
            try self.mirror.store.writeTransaction { db in try db.execute(sql: "DELETE FROM ANIMBUSCLOUDZONE") }
            let epoch = UUID().uuidString
            try await self.mirror.transport.deleteZone(self.mirror.zoneID)
            try await self.mirror.transport.createZone(self.mirror.zoneID)
            let now = try self.mirror.store.writeTransaction { db in try self.mirror.now(db) }
            let request = ModifyRecordsRequest(saves: [ZoneEpoch.record(epoch, device: self.mirror.deviceID, at: now)], savePolicy: .allKeys)
            _ = try await self.mirror.transport.modify(request, in: self.mirror.zoneID)
            try await ReplicaReset(mirror: self.mirror).wipe()
            try self.mirror.store.writeTransaction { db in try SyncMetadata.setState(.zoneEpoch, epoch, db) }
        }
    }

    private func syncSerially() async throws -> Summary {
        if passBaseline == nil { passBaseline = exchanged }
        defer { passBaseline = nil }
        do {
            let summary = try await syncOnce()
            failures = 0
            try? recordOutcome(error: nil)
            if let retention = mirror.historyRetention {
                do { try HistoryTrim.run(mirror.store, retention: retention) } catch { mirror.log.notice("history was not purged: \(error)") }
            }
            return summary
        } catch {
            let cloudError = Self.cloudError(error)
            if cloudError.code == .zoneNotFound {
                mirror.log.notice("the zone \(mirror.zoneID.zoneName) is gone from the server; creating it again and uploading this replica")
                try await recreateZone()
                let summary = try await syncOnce()
                try? recordOutcome(error: nil)
                return summary
            }
            try? recordOutcome(error: cloudError)
            if cloudError.code == .notAuthenticated {
                // An account event, not a loss: everything pending stays until a new token comes.
                emit(CloudEvent(kind: .account, phase: .ended, storeIdentifier: storeIdentifier, recordCount: 0, error: cloudError, endDate: Date()))
            }
            throw cloudError
        }
    }

    /// One pass: export, import, export again. A failed export (a full quota, a refused
    /// batch) does not keep this device from receiving, nor a failed import from sending:
    /// each half runs, and the first failure is thrown after both.
    private func syncOnce() async throws -> Summary {
        try await setUp()
        try await UpgradeReplayer(mirror: mirror).run()
        let directory = ZoneDirectory(mirror: mirror)
        if directory.isSharedStore || needsDiscovery {
            for lane in try await directory.discover() { emitZoneRemoved(lane) }
            needsDiscovery = false
        }
        try await directory.placeNewObjects()
        var summary = Summary()
        var failure: (any Error)?
        for lane in try directory.lanes() {
            mirror.log.debug("syncing zone \(lane?.description ?? "(default)")")
            do {
                try await syncZone(lane, into: &summary)
            } catch let error as CloudError where lane?.key != nil && error.code == .zoneNotFound {
                // Unshared, or this user was removed or left: the zone leaves the store.
                try await directory.remove(lane!)
                emitZoneRemoved(lane!)
            } catch let error as CloudError where lane?.key != nil && error.code == .permissionFailure {
                // An edit reached a zone this user may only read (the permission changed
                // while it was pending): the server's version comes back.
                try await revert(lane!, directory: directory, refusal: error)
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
        return summary
    }

    /// Whether the next pass asks the server which zones there are (at launch, after a
    /// share, on push about a zone this store does not know).
    private var needsDiscovery = true

    /// Asks the next pass to look for zones made or removed elsewhere.
    func requestDiscovery() { needsDiscovery = true }

    private func emitZoneRemoved(_ lane: ZoneLane) {
        emit(CloudEvent(kind: .sharing, phase: .ended, storeIdentifier: storeIdentifier, recordCount: 0,
                        error: CloudError(.zoneNotFound, "the zone \(lane) is no longer shared with this user; its objects were removed from the store")))
    }

    /// Puts the server's version of a zone back after the server refused this device's
    /// edits in it: the zone's objects are removed here and fetched again.
    private func revert(_ lane: ZoneLane, directory: ZoneDirectory, refusal: CloudError) async throws {
        let row = try mirror.store.readTransaction { db in try Placement.zone(key: lane.key ?? "", db) }
        try await directory.remove(lane)
        try mirror.store.writeTransaction { db in
            try Placement.addZone(lane.zoneID, permission: .readOnly, shareID: row?.shareID, db)
        }
        let imported = try await Importer(mirror: mirror, lane: lane).run()
        emit(CloudEvent(kind: .sharing, phase: .ended, storeIdentifier: storeIdentifier, recordCount: imported.applied,
                        error: CloudError(.permissionFailure, "edits in the zone \(lane) were refused by the server (\(refusal.message)); "
                            + "the server's version was put back")))
    }

    /// Export, import and export again for one zone (`nil`: the default zone of a store
    /// with no other).
    private func syncZone(_ lane: ZoneLane?, into summary: inout Summary) async throws {
        var failure: (any Error)?
        var exported = Exporter.Outcome()
        do { exported = try await export(lane) } catch { failure = error }
        summary.exported += exported.confirmed
        exchanged.exported += exported.confirmed
        do {
            let imported = try await importChanges(lane, extraDeletions: exported.deletedOnServer)
            summary.imported += imported.applied
            summary.deleted += imported.deleted
            summary.conflicts += imported.conflicts
            summary.quarantined = imported.quarantined
            exchanged.imported += imported.applied
            exchanged.deleted += imported.deleted
            exchanged.conflicts += imported.conflicts
            exchanged.quarantined += imported.quarantined
        } catch {
            failure = failure ?? error
        }
        // Edits saved meanwhile, and deletions the delete rules made during the import.
        if failure == nil {
            do {
                let again = try await export(lane)
                summary.exported += again.confirmed
                exchanged.exported += again.confirmed
                exported.itemErrors += again.itemErrors
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        if let error = exported.itemErrors.first(where: { $0.code == .permissionFailure }) ?? exported.itemErrors.first { throw error }
    }

    private func export(_ lane: ZoneLane?) async throws -> Exporter.Outcome {
        let events = CloudEventPair(.export, storeIdentifier: storeIdentifier, emit: emit)
        do {
            let outcome = try await Exporter(mirror: mirror, lane: lane).run { sent, _ in events.progress(sent) }
            events.end(recordCount: outcome.confirmed, error: outcome.itemErrors.first)
            return outcome
        } catch {
            events.end(recordCount: 0, error: Self.cloudError(error))
            throw error
        }
    }

    private func importChanges(_ lane: ZoneLane?, extraDeletions: [String]) async throws -> Importer.Outcome {
        let events = CloudEventPair(.import, storeIdentifier: storeIdentifier, emit: emit)
        do {
            let importer = Importer(mirror: mirror, lane: lane)
            if !extraDeletions.isEmpty {
                let stamp = HLCStamp(time: 0, device: "")
                _ = try await importer.applyIsolating([], deletions: extraDeletions.map { DeletedRecord(recordName: $0, stamp: stamp) }, token: nil)
            }
            let outcome = try await importer.run { count in events.progress(count) }
            events.end(recordCount: outcome.applied, deletedCount: outcome.deleted, conflictCount: outcome.conflicts,
                       quarantinedCount: outcome.quarantined)
            return outcome
        } catch {
            events.end(recordCount: 0, error: Self.cloudError(error))
            throw error
        }
    }

    /// The zone was deleted on the server: create it again and mark the whole replica for upload.
    private func recreateZone() async throws {
        try await mirror.transport.createZone(mirror.zoneID)
        try mirror.store.writeTransaction { db in
            try db.execute(sql: """
                UPDATE ANIMBUSCLOUDRECORD SET ZCHANGETAG = NULL, ZANCESTOR = NULL;
                DELETE FROM ANIMBUSCLOUDLINK WHERE ZLINKED = 0;
                UPDATE ANIMBUSCLOUDLINK SET ZPENDING = 1;
                DELETE FROM ANIMBUSCLOUDPARKED;
                DELETE FROM ANIMBUSCLOUDDELETION;
                DELETE FROM ANIMBUSCLOUDMARKER;
                """)
            try SyncMetadata.setState(.zoneToken, nil, db)
            try SyncMetadata.setState(.zoneReady, true, db)
            _ = try mirror.capture.seed(at: try mirror.now(db), db)
        }
    }

    private func recordOutcome(error: CloudError?) throws {
        try mirror.store.writeTransaction { db in
            if error == nil { try SyncMetadata.setState(.lastSync, Date().timeIntervalSince1970, db) }
            try SyncMetadata.setState(.lastError, error?.description, db)
        }
    }

    // MARK: Scheduling

    /// Starts syncing by itself: now, after each local save, on push, and after
    /// failures by ``SyncPolicy``.
    func start() {
        guard loop == nil else { return }
        let store = mirror.store
        let importContext = mirror.importContext
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.wake.withLock { $0 = wake }
        observer = NotificationCenter.default.addObserver(forName: ManagedObjectContext.didSaveObjectIDsNotification, object: nil, queue: nil) { note in
            guard (note.object as? ManagedObjectContext) !== importContext,
                  let changes = note.userInfo?[SaveNotification.userInfoKey] as? SaveNotification else { return }
            let ids = changes.insertedObjectIDs.union(changes.updatedObjectIDs).union(changes.deletedObjectIDs)
            if ids.contains(where: { $0.storeIdentifier == store.identifier }) { wake.yield() }
        }
        loop = Task { [weak self] in await self?.runLoop(wakes) }
        push = Task { [weak self] in await self?.listen() }
        wake.yield()
    }

    /// Stops syncing by itself and waits until none of its tasks runs: the loop, the push
    /// listener, a scheduled retry and the sync running now (before the store is removed,
    /// no task of the engine outlives it).
    func quiesce() async {
        let tasks = stop()
        for task in tasks { await task.value }
        _ = try? await running?.value
    }

    /// Stops syncing by itself (cancels the loop, the push listener and a scheduled retry)
    /// and returns those tasks, for a caller that waits for them to end.
    @discardableResult
    func stop() -> [Task<Void, Never>] {
        let tasks = [loop, push, retry].compactMap { $0 }
        for task in tasks { task.cancel() }
        loop = nil
        push = nil
        retry = nil
        wake.withLock { $0?.finish(); $0 = nil }
        if let observer { NotificationCenter.default.removeObserver(observer) }
        observer = nil
        return tasks
    }

    /// Takes a new token of the same account: later requests use `transport`, the push
    /// socket reconnects with it, and a sync follows when syncing by itself (what waited
    /// for the token goes out). The store and its metadata are untouched.
    func replaceCredentials(options: CloudContainerOptions, transport: any CloudTransport) {
        mirror.replaceCredentials(options: options, transport: transport)
        failures = 0
        if loop != nil {
            push?.cancel()
            push = Task { [weak self] in await self?.listen() }
            requestSync()
        }
    }

    /// Asks for a sync soon.
    nonisolated func requestSync() { _ = wake.withLock { $0?.yield() } }

    private func runLoop(_ wakes: AsyncStream<Void>) async {
        for await _ in wakes {
            if Task.isCancelled { return }
            // No debounce: a wake syncs at once, and the saves and pushes that arrive while
            // it runs collapse into one wake (the stream keeps the newest only), so a burst
            // goes out in one more sync, and a lone save pays no waiting.
            do {
                _ = try await sync()
            } catch {
                failures += 1
                let decision = SyncPolicy.decide(Self.cloudError(error), attempt: failures)
                mirror.log.info("sync failed (\(error)); \(decision)")
                if case let .retry(after) = decision {
                    retry?.cancel()
                    retry = Task { [weak self] in
                        guard (try? await Pause.sleep(for: .seconds(after))) != nil else { return }
                        self?.requestSync()
                    }
                }
            }
        }
    }

    private func listen() async {
        var attempt = 0
        while !Task.isCancelled {
            do {
                for try await message in mirror.transport.pushMessages() {
                    attempt = 0
                    if message.kind == .hello || message.zoneID?.zoneName == mirror.zoneID.zoneName { requestSync() }
                    else if message.zoneID != nil {
                        // Another zone: a share made on another device, or one shared with this user.
                        needsDiscovery = true
                        requestSync()
                    }
                }
            } catch {
                mirror.log.debug("push socket closed: \(error)")
            }
            attempt += 1
            try? await Pause.sleep(for: .seconds(SyncPolicy.backoff(attempt)))
        }
    }

    static func cloudError(_ error: any Error) -> CloudError {
        if let error = error as? CloudError { return error }
        if let error = error as? NimbusError { return CloudError(.server, "the store refused a sync write: \(error)") }
        return CloudError(.server, "\(error)")
    }
}
