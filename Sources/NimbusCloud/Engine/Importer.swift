import Foundation
import GRDB
import struct NimbusWire.Record
import Nimbus
import NimbusWire

/// Fetches the zone's changes since the stored token, page by page, and applies each page
/// in one transaction that also stores the page's token: a crash between pages resumes at
/// the last applied page, and a page applied twice changes nothing.
///
/// An expired token refetches the whole zone; objects the server no longer has (their
/// tombstones were purged while this device was away) are removed at the end.
struct Importer: Sendable {
    let mirror: StoreMirror
    /// Records per page: the most the server sends in one (see ``FetchZoneChangesRequest/maximumLimit``).
    var pageSize = FetchZoneChangesRequest.maximumLimit
    /// Whether records are applied whatever their ancestors say (fields a model upgrade made
    /// known, see ``UpgradeReplayer``).
    var replaying = false
    /// Whether two synced records claiming one unique key merge (see ``PageApplier``).
    var settlesKeyConflicts = false
    /// The assets this importer downloaded (files, kept while it runs).
    var assetFiles = AssetFiles()
    /// The zone to import; `nil` for the store's default zone (see ``ZoneLane``).
    var lane: ZoneLane? = nil

    /// The zone imported.
    var zone: ZoneLane { lane ?? .defaultZone(mirror.zoneID) }

    struct Outcome: Sendable {
        var pages = 0
        var applied = 0
        var deleted = 0
        var parked = 0
        var conflicts = 0
        /// Records set aside as unappliable (see ``Quarantine``).
        var quarantined = 0
    }

    func run(progress: @Sendable (Int) -> Void = { _ in }) async throws -> Outcome {
        var outcome = Outcome()
        // The next page, asked for while this one is applied (see ``PagePrefetch``).
        var ahead: PagePrefetch?
        defer { ahead?.cancel() }
        while true {
            let zone = self.zone
            let (token, refetching) = try mirror.store.readTransaction { db in (try zone.token(db), try zone.isRefetching(db)) }
            let page: FetchZoneChangesResponse
            do {
                let prefetched = ahead
                ahead = nil
                page = try await PagePrefetch.page(since: token, prefetched: prefetched, limit: pageSize, mirror: mirror, zone: zone.zoneID)
                if page.moreComing {
                    ahead = PagePrefetch(since: page.changeToken, limit: pageSize, mirror: mirror, zone: zone.zoneID)
                }
            } catch let error as CloudError where error.code == .changeTokenExpired {
                mirror.log.notice("the change token of zone \(zone) expired; fetching the whole zone again")
                try mirror.store.writeTransaction { db in
                    try zone.setToken(nil, db)
                    try zone.setRefetching(true, db)
                    try db.execute(sql: "CREATE TABLE IF NOT EXISTS ANIMBUSCLOUDSEEN (ZRECORDNAME TEXT PRIMARY KEY)")
                    try db.execute(sql: "DELETE FROM ANIMBUSCLOUDSEEN")
                }
                continue
            }
            if lane == nil, let epoch = ZoneEpoch.epoch(in: page.records) { outcome.deleted += try await adopt(epoch) }
            let stats = try await applyIsolating(page.records, deletions: page.deletions, token: page.changeToken, recordSeen: refetching)
            outcome.pages += 1
            outcome.applied += stats.applied
            outcome.deleted += stats.deleted
            outcome.parked = stats.parked
            outcome.conflicts += stats.conflicts
            outcome.quarantined += stats.quarantined
            progress(outcome.applied + outcome.deleted)
            if !page.moreComing {
                if refetching { outcome.deleted += try await removeVanished() }
                break
            }
        }
        outcome.deleted += try await settleDanglingReferences()
        // Something changed: records set aside earlier may apply now (a uniqueness conflict
        // resolved, a deletion a rule refused, the record a membership waited for).
        // Caught up with the zone: two records claiming one unique key are settled now.
        if outcome.applied + outcome.deleted + outcome.quarantined > 0 {
            var settling = self
            settling.settlesKeyConflicts = true
            outcome.quarantined = try await settling.retryQuarantined()
        }
        return outcome
    }

    /// Caught up with the zone, records still parked wait for a record that is not coming: one
    /// deleted while this device (or the one that wrote the reference) was away, whose
    /// tombstone the server has since purged. The server is asked; names it doesn't have are
    /// taken as deleted, and the records waiting for them apply as if their deletion had
    /// arrived (a reference to a deleted object follows its delete rule), the same on every
    /// device, so replicas agree instead of waiting forever. Returns the objects removed.
    func settleDanglingReferences() async throws -> Int {
        let waiting = try mirror.store.readTransaction { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT ZWAITINGFOR FROM ANIMBUSCLOUDPARKED \(lane.map { "WHERE " + $0.zoneColumnSQL } ?? "") ORDER BY ZWAITINGFOR")
        }
        guard !waiting.isEmpty else { return 0 }
        var gone: [String] = []
        for start in stride(from: 0, to: waiting.count, by: LookupRecordsRequest.maximumNames) {
            let names = Array(waiting[start..<min(start + LookupRecordsRequest.maximumNames, waiting.count)])
            for result in try await mirror.transport.lookup(names, in: zone.zoneID) {
                if result.record == nil, result.error?.code == .unknownItem || result.error == nil { gone.append(result.recordName) }
            }
        }
        guard !gone.isEmpty else { return 0 }
        mirror.log.notice("\(gone.count) record(s) referred to are gone from the server; repairing the references to them")
        let stamp = HLCStamp(time: 0, device: "")
        return try await applyIsolating([], deletions: gone.map { DeletedRecord(recordName: $0, stamp: stamp) }, token: nil).deleted
    }

    /// Tries the quarantined records and deletions again; returns how many stay set aside.
    @discardableResult
    func retryQuarantined() async throws -> Int {
        let filter = lane?.zoneColumnSQL
        let (records, deletions) = try mirror.store.readTransaction { db in try Quarantine.pending(zone: filter, db) }
        if records.isEmpty && deletions.isEmpty { return 0 }
        let stamp = HLCStamp(time: 0, device: "")
        let stats = try await applyIsolating(records, deletions: deletions.map { DeletedRecord(recordName: $0, stamp: stamp) }, token: nil)
        mirror.log.info("tried \(records.count + deletions.count) quarantined record(s) again; \(stats.quarantined) stay set aside")
        return stats.quarantined
    }

    /// Applies a page in one transaction; when that fails because of what a record holds (a
    /// value its model refuses, a uniqueness conflict, a deletion a rule refuses), applies the
    /// records one by one, sets aside those that fail (``Quarantine``), and stores the page's
    /// token: one bad record never stops sync.
    func applyIsolating(_ records: [Record], deletions: [DeletedRecord], token: ChangeToken?,
                        recordSeen: Bool = false) async throws -> PageApplier.Stats {
        do {
            return try await apply(records, deletions: deletions, token: token, recordSeen: recordSeen)
        } catch let error where Self.isRecordFault(error) {
            mirror.log.notice("a page of \(records.count) record(s) and \(deletions.count) deletion(s) did not apply (\(error)); applying them one by one")
        }
        var stats = PageApplier.Stats()
        for record in records {
            do {
                stats += try await apply([record], deletions: [], token: nil, recordSeen: recordSeen)
            } catch let error where Self.isRecordFault(error) {
                try mirror.store.writeTransaction { db in try Quarantine.add(record, reason: Self.reason(error), zone: lane?.key, db) }
                mirror.log.notice("record \(record.recordName) (\(record.recordType)) set aside: \(Self.reason(error))")
                stats.quarantined += 1
            }
        }
        for deletion in deletions {
            do {
                stats += try await apply([], deletions: [deletion], token: nil)
            } catch let error where Self.isRecordFault(error) {
                try mirror.store.writeTransaction { db in try Quarantine.addDeletion(deletion.recordName, reason: Self.reason(error), zone: lane?.key, db) }
                mirror.log.notice("deletion of \(deletion.recordName) set aside: \(Self.reason(error))")
                stats.quarantined += 1
            }
        }
        stats += try await apply([], deletions: [], token: token)
        return stats
    }

    /// Whether an import failed because of what a record holds (not the store or the disk).
    static func isRecordFault(_ error: any Error) -> Bool {
        if error is PageApplier.RecordFault { return true }
        guard let error = error as? NimbusError else { return false }
        return [.validationFailed, .deleteDenied, .unknownEntity, .unknownProperty, .typeMismatch, .constraintConflict,
                .invalidArgument, .objectNotFound].contains(error.code)
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? NimbusError { return error.message }
        return "\(error)"
    }

    /// Applies records and deletions in one transaction (again, if a local save slipped in).
    func apply(_ records: [Record], deletions: [DeletedRecord], token: ChangeToken?, recordSeen: Bool = false) async throws -> PageApplier.Stats {
        let mirror = self.mirror
        let context = mirror.importContext
        let applier = PageApplier(mirror: mirror, context: context, assets: assetFiles, replaying: replaying,
                                  settlesKeyConflicts: settlesKeyConflicts, lane: lane)
        var attempt = 0
        while attempt < 20 {
            attempt += 1
            try mirror.store.writeTransaction { db in
                try mirror.capture.capture(db)
                if recordSeen {
                    for record in records {
                        try db.execute(sql: "INSERT OR IGNORE INTO ANIMBUSCLOUDSEEN (ZRECORDNAME) VALUES (?)", arguments: [record.recordName])
                    }
                }
            }
            do {
                return try await context.perform {
                    defer { context.reset() }
                    return try applier.apply(records: records, deletions: deletions, token: token)
                }
            } catch let needs as PageApplier.NeedsAssets {
                // Only the assets whose values the page sets, to files (a missing one is a
                // fault of the record that refers to it: set aside, the rest applies).
                guard needs.references.contains(where: { !assetFiles.has($0) }) else {
                    throw CloudError(.server, "the assets \(needs.references.map(\.checksum)) were downloaded but can't be read")
                }
                try await assetFiles.download(needs.references, with: mirror.transport)
                attempt -= 1
                continue
            } catch is PageApplier.UncapturedEdits {
                mirror.log.debug("a local save arrived during import (attempt \(attempt)); applying the page again")
                continue
            } catch let error as NimbusError where error.code == .mergeConflict {
                mirror.log.debug("a local save changed an object during import (attempt \(attempt)); applying the page again")
                continue
            }
        }
        throw CloudError(.server, "local saves kept changing the objects of an import page; it will be applied at the next sync")
    }

    /// A zone epoch arrived: when it is not this replica's and the replica held data the
    /// server had confirmed, the zone was erased elsewhere, so the replica goes too.
    private func adopt(_ epoch: String) async throws -> Int {
        let (local, confirmed) = try mirror.store.readTransaction { db in
            (String.fromDatabaseValue(try SyncMetadata.state(.zoneEpoch, db)),
             try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM ANIMBUSCLOUDRECORD WHERE ZCHANGETAG IS NOT NULL)") ?? false)
        }
        guard local != epoch else { return 0 }
        var removed = 0
        if local != nil || confirmed {
            mirror.log.notice("the zone's content was erased on another device; removing this replica")
            removed = try await ReplicaReset(mirror: mirror).wipe()
        }
        try mirror.store.writeTransaction { db in try SyncMetadata.setState(.zoneEpoch, epoch, db) }
        return removed
    }

    /// After a full refetch: objects the server confirmed once and no longer has are removed.
    private func removeVanished() async throws -> Int {
        let zone = self.zone
        let names = try mirror.store.readTransaction { db in
            try String.fetchAll(db, sql: """
                SELECT r.ZRECORDNAME FROM ANIMBUSCLOUDRECORD r
                LEFT JOIN ANIMBUSCLOUDPENDING p ON p.ZENTITY = r.ZENTITY AND p.ZPK = r.ZPK
                WHERE r.ZCHANGETAG IS NOT NULL AND p.ZPK IS NULL
                AND r.ZRECORDNAME NOT IN (SELECT ZRECORDNAME FROM ANIMBUSCLOUDSEEN)
                AND \(zone.holdsSQL(entity: "r.ZENTITY", primaryKey: "r.ZPK"))
                """)
        }
        let stamp = HLCStamp(time: 0, device: "")
        let stats = try await applyIsolating([], deletions: names.map { DeletedRecord(recordName: $0, stamp: stamp) }, token: nil)
        try mirror.store.writeTransaction { db in
            try zone.setRefetching(false, db)
            try db.execute(sql: "DELETE FROM ANIMBUSCLOUDSEEN")
        }
        return stats.deleted
    }
}
