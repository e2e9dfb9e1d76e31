import Foundation
import GRDB
import Logging
import Nimbus
import NimbusWire

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
    private var observer: (any NSObjectProtocol)?
    private let wake: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>

    init(mirror: StoreMirror, emit: @escaping @Sendable (CloudEvent) -> Void) {
        self.mirror = mirror
        self.emit = emit
        (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
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
    }

    // MARK: Setup

    func setUp() async throws {
        if isSetUp { return }
        emit(CloudEvent(kind: .setup, phase: .started, storeIdentifier: storeIdentifier, recordCount: 0))
        do {
            try await mirror.transport.checkServer()
            let ready = try mirror.store.readTransaction { db in Bool.fromDatabaseValue(try SyncMetadata.state(.zoneReady, db)) ?? false }
            if !ready {
                try await mirror.transport.createZone(mirror.zoneID)
                try mirror.store.writeTransaction { db in try SyncMetadata.setState(.zoneReady, true, db) }
            }
            let captured = try mirror.store.writeTransaction { db in try mirror.capture.capture(db) }
            isSetUp = true
            emit(CloudEvent(kind: .setup, phase: .ended, storeIdentifier: storeIdentifier, recordCount: captured))
        } catch {
            let cloudError = Self.cloudError(error)
            emit(CloudEvent(kind: .setup, phase: .ended, storeIdentifier: storeIdentifier, recordCount: 0, error: cloudError))
            throw cloudError
        }
    }

    // MARK: Syncing

    /// The sync running now; the next one waits for it (an actor lets calls interleave at
    /// each `await`, and two syncs of one store must not).
    private var running: Task<Summary, any Error>?

    /// Exports, imports and exports again until nothing is pending.
    func sync() async throws -> Summary {
        let previous = running
        let task = Task {
            _ = try? await previous?.value
            return try await self.syncSerially()
        }
        running = task
        return try await task.value
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
        try await serially {
            try await self.setUp()
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
        do {
            let summary = try await syncOnce()
            failures = 0
            try? recordOutcome(error: nil)
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
            throw cloudError
        }
    }

    /// One pass: export, import, export again. A failed export (a full quota, a refused
    /// batch) does not keep this device from receiving, nor a failed import from sending:
    /// each half runs, and the first failure is thrown after both.
    private func syncOnce() async throws -> Summary {
        try await setUp()
        try await UpgradeReplayer(mirror: mirror).run()
        var summary = Summary()
        var failure: (any Error)?
        var exported = Exporter.Outcome()
        do { exported = try await export() } catch { failure = error }
        summary.exported += exported.confirmed
        do {
            let imported = try await importChanges(extraDeletions: exported.deletedOnServer)
            summary.imported += imported.applied
            summary.deleted += imported.deleted
            summary.conflicts += imported.conflicts
            summary.quarantined = imported.quarantined
        } catch {
            failure = failure ?? error
        }
        // Edits saved meanwhile, and deletions the delete rules made during the import.
        if failure == nil {
            do {
                let again = try await export()
                summary.exported += again.confirmed
                exported.itemErrors += again.itemErrors
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        if let error = exported.itemErrors.first { throw error }
        return summary
    }

    private func export() async throws -> Exporter.Outcome {
        let id = storeIdentifier
        let emit = self.emit
        emit(CloudEvent(kind: .export, phase: .started, storeIdentifier: id, recordCount: 0))
        do {
            let outcome = try await Exporter(mirror: mirror).run { sent, _ in
                emit(CloudEvent(kind: .export, phase: .progress, storeIdentifier: id, recordCount: sent))
            }
            emit(CloudEvent(kind: .export, phase: .ended, storeIdentifier: id, recordCount: outcome.confirmed, error: outcome.itemErrors.first))
            return outcome
        } catch {
            emit(CloudEvent(kind: .export, phase: .ended, storeIdentifier: id, recordCount: 0, error: Self.cloudError(error)))
            throw error
        }
    }

    private func importChanges(extraDeletions: [String]) async throws -> Importer.Outcome {
        let id = storeIdentifier
        let emit = self.emit
        emit(CloudEvent(kind: .import, phase: .started, storeIdentifier: id, recordCount: 0))
        do {
            let importer = Importer(mirror: mirror)
            if !extraDeletions.isEmpty {
                let stamp = HLCStamp(time: 0, device: "")
                _ = try await importer.applyIsolating([], deletions: extraDeletions.map { DeletedRecord(recordName: $0, stamp: stamp) }, token: nil)
            }
            let outcome = try await importer.run { count in
                emit(CloudEvent(kind: .import, phase: .progress, storeIdentifier: id, recordCount: count))
            }
            emit(CloudEvent(kind: .import, phase: .ended, storeIdentifier: id, recordCount: outcome.applied,
                            deletedCount: outcome.deleted, conflictCount: outcome.conflicts, quarantinedCount: outcome.quarantined))
            return outcome
        } catch {
            emit(CloudEvent(kind: .import, phase: .ended, storeIdentifier: id, recordCount: 0, error: Self.cloudError(error)))
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
        let wake = self.wake
        observer = NotificationCenter.default.addObserver(forName: ManagedObjectContext.didSaveObjectIDsNotification, object: nil, queue: nil) { note in
            guard (note.object as? ManagedObjectContext) !== importContext,
                  let changes = note.userInfo?[SaveNotification.userInfoKey] as? SaveNotification else { return }
            let ids = changes.insertedObjectIDs.union(changes.updatedObjectIDs).union(changes.deletedObjectIDs)
            if ids.contains(where: { $0.storeIdentifier == store.identifier }) { wake.yield() }
        }
        loop = Task { [weak self] in await self?.runLoop() }
        push = Task { [weak self] in await self?.listen() }
        wake.yield()
    }

    /// Stops syncing by itself and waits for the sync running now to end (before the store
    /// is removed).
    func quiesce() async {
        stop()
        _ = try? await running?.value
    }

    func stop() {
        loop?.cancel()
        push?.cancel()
        loop = nil
        push = nil
        if let observer { NotificationCenter.default.removeObserver(observer) }
        observer = nil
    }

    /// Asks for a sync soon.
    nonisolated func requestSync() { wake.yield() }

    private func runLoop() async {
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
                    let wake = self.wake
                    Task { try? await Task.sleep(for: .seconds(after)); wake.yield() }
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
                    if message.kind == .hello || message.zoneID?.zoneName == mirror.zoneID.zoneName { wake.yield() }
                }
            } catch {
                mirror.log.debug("push socket closed: \(error)")
            }
            attempt += 1
            try? await Task.sleep(for: .seconds(SyncPolicy.backoff(attempt)))
        }
    }

    static func cloudError(_ error: any Error) -> CloudError {
        if let error = error as? CloudError { return error }
        if let error = error as? NimbusError { return CloudError(.server, "the store refused a sync write: \(error)") }
        return CloudError(.server, "\(error)")
    }
}
