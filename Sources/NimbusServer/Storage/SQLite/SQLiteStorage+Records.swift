import Foundation
import GRDB
import NimbusWire

extension SQLiteStorage {
    package func modifyRecords(_ zone: ZoneKey, _ request: ModifyRecordsRequest, context: ModifyContext) async throws -> ModifyOutcome {
        let outcome = try await pool.write { db -> ModifyOutcome in
            guard var state = try Self.liveZone(db, zone) else { throw StorageErrors.zoneNotFound(zone) }
            let names = request.saves.map(\.recordName) + request.deletions.map(\.recordName)
            let existing = try Self.records(db, zoneRowID: state.rowID, names: names)
            let plan = ModifyPlanner.plan(request, existing: existing, zone: state, device: context.device, now: context.now)
            guard !plan.writes.isEmpty else { return ModifyOutcome(plan: plan, zone: state, event: nil) }

            if let userID = context.quotaUserID, plan.byteDelta != 0 {
                try Self.charge(db, userID: userID, bytes: plan.byteDelta, defaultQuota: context.defaultQuotaBytes)
            }
            try Self.write(db, zoneRowID: state.rowID, rows: plan.writes)
            state.seq = plan.newSeq
            state.databaseSeq = try Self.bumpDatabase(db, zone.database)
            try db.execute(
                sql: "UPDATE zones SET seq = ?, db_seq = ? WHERE id = ?",
                arguments: [state.seq, state.databaseSeq, state.rowID])
            var outcome = ModifyOutcome(plan: plan, zone: state, event: ChangeEvent(zone: zone, state: state))
            if state.shared { outcome.sharedEvents = try Self.fanOutToParticipants(db, zone: zone, state: state) }
            return outcome
        }
        if let event = outcome.event { changeFeed.deliver(event) }
        for event in outcome.sharedEvents { changeFeed.deliver(event) }
        return outcome
    }

    package func lookupRecords(_ zone: ZoneKey, names: [String]) async throws -> [String: StoredRecord] {
        try await pool.read { db in
            guard let state = try Self.liveZone(db, zone) else { throw StorageErrors.zoneNotFound(zone) }
            return try Self.records(db, zoneRowID: state.rowID, names: names)
        }
    }

    package func zoneChanges(_ zone: ZoneKey, afterSeq: Int64, limit: Int, maximumBytes: Int64) async throws -> ZoneChangesPage {
        try await pool.read { db in
            guard let state = try Self.liveZone(db, zone) else { throw StorageErrors.zoneNotFound(zone) }
            // A cursor, so that rows past the byte bound are never decoded.
            let cursor = try Row.fetchCursor(
                db, sql: "SELECT * FROM records WHERE zone_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                arguments: [state.rowID, afterSeq, limit + 1]
            ).map(Self.storedRecord)
            var rows: [StoredRecord] = []
            var bytes: Int64 = 0
            while rows.count <= limit, rows.isEmpty || bytes < maximumBytes, let row = try cursor.next() {
                rows.append(row)
                bytes += row.size + Int64(row.recordName.utf8.count)
            }
            let more = try rows.count > limit || (cursor.next() != nil)
            let page = ZoneChangesPage.bounded(rows, limit: limit, maximumBytes: maximumBytes)
            return ZoneChangesPage(zone: state, records: page.records, moreComing: page.moreComing || more)
        }
    }

    package func purgeTombstones(olderThan cutoff: Int64) async throws -> Int {
        try await pool.write { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT zone_id, MAX(seq) AS max_seq FROM records WHERE deleted_time IS NOT NULL AND modified_at < ? GROUP BY zone_id",
                arguments: [cutoff])
            for row in rows {
                try db.execute(
                    sql: "UPDATE zones SET purged_seq = MAX(purged_seq, ?) WHERE id = ?",
                    arguments: [try row.stored("max_seq", in: "records") as Int64, try row.stored("zone_id", in: "records") as Int64])
            }
            try db.execute(sql: "DELETE FROM records WHERE deleted_time IS NOT NULL AND modified_at < ?", arguments: [cutoff])
            return db.changesCount
        }
    }

    // MARK: Rows

    static func records(_ db: Database, zoneRowID: Int64, names: [String]) throws -> [String: StoredRecord] {
        var found: [String: StoredRecord] = [:]
        for chunk in stride(from: 0, to: names.count, by: 500).map({ Array(names[$0..<min($0 + 500, names.count)]) }) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            var arguments: StatementArguments = [zoneRowID]
            arguments += StatementArguments(chunk)
            for row in try Row.fetchAll(db, sql: "SELECT * FROM records WHERE zone_id = ? AND name IN (\(marks))", arguments: arguments) {
                let record = try storedRecord(row)
                found[record.recordName] = record
            }
        }
        return found
    }

    static func write(_ db: Database, zoneRowID: Int64, rows: [StoredRecord]) throws {
        let upsert = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO records(zone_id, name, type, fields, change_tag, seq, created_at, created_device,
                modified_at, modified_device, deleted_time, deleted_device, size)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let clearRefs = try db.cachedStatement(sql: "DELETE FROM asset_refs WHERE zone_id = ? AND record_name = ?")
        let addRef = try db.cachedStatement(sql: "INSERT OR IGNORE INTO asset_refs(zone_id, record_name, checksum) VALUES (?, ?, ?)")
        for row in rows {
            try upsert.execute(arguments: [
                zoneRowID, row.recordName, row.recordType, try row.fieldsJSON(), row.changeTag, row.seq,
                row.created.time, row.created.device, row.modified.time, row.modified.device,
                row.deletion?.time, row.deletion?.device, row.size,
            ])
            let checksums = row.assetChecksums
            try clearRefs.execute(arguments: [zoneRowID, row.recordName])
            for checksum in checksums {
                try addRef.execute(arguments: [zoneRowID, row.recordName, checksum])
            }
        }
    }

    static func charge(_ db: Database, userID: Int64, bytes: Int64, defaultQuota: Int64) throws {
        guard let row = try Row.fetchOne(db, sql: "SELECT used_bytes, quota_bytes FROM users WHERE id = ?", arguments: [userID]) else { return }
        let used: Int64 = try row.stored("used_bytes", in: "users")
        let quota: Int64 = try row.storedIfPresent("quota_bytes", in: "users") ?? defaultQuota
        if bytes > 0 && used + bytes > quota {
            throw StorageErrors.quotaExceeded(used: used, adding: bytes, quota: quota)
        }
        try db.execute(sql: "UPDATE users SET used_bytes = MAX(0, used_bytes + ?) WHERE id = ?", arguments: [bytes, userID])
    }

    static func storedRecord(_ row: Row) throws -> StoredRecord {
        let deletedTime: Int64? = try row.storedIfPresent("deleted_time", in: "records")
        let deletedDevice: String? = try row.storedIfPresent("deleted_device", in: "records")
        let deletion = deletedTime.map { HLCStamp(time: $0, device: deletedDevice ?? "") }
        return StoredRecord(
            recordName: try row.stored("name", in: "records"), recordType: try row.stored("type", in: "records"),
            fields: try FieldsCoding.decode(try row.stored("fields", in: "records")),
            changeTag: try row.stored("change_tag", in: "records"), seq: try row.stored("seq", in: "records"),
            created: RecordStamp(time: try row.stored("created_at", in: "records"), device: try row.stored("created_device", in: "records")),
            modified: RecordStamp(time: try row.stored("modified_at", in: "records"), device: try row.stored("modified_device", in: "records")),
            deletion: deletion, size: try row.stored("size", in: "records"))
    }
}
