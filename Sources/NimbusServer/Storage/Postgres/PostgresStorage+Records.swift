import Foundation
import NimbusWire
import PostgresNIO

extension PostgresStorage {
    package func modifyRecords(_ zone: ZoneKey, _ request: ModifyRecordsRequest, context: ModifyContext) async throws -> ModifyOutcome {
        let outcome: ModifyOutcome = try await transaction { [logger] connection in
            guard var state = try await Self.liveZone(connection, zone, logger: logger, lock: true) else {
                throw StorageErrors.zoneNotFound(zone)
            }
            let names = request.saves.map(\.recordName) + request.deletions.map(\.recordName)
            let existing = try await Self.records(connection, zoneRowID: state.rowID, names: names, logger: logger)
            let plan = ModifyPlanner.plan(request, existing: existing, zone: state, device: context.device, now: context.now)
            guard !plan.writes.isEmpty else { return ModifyOutcome(plan: plan, zone: state, event: nil) }

            if let userID = context.quotaUserID, plan.byteDelta != 0 {
                try await Self.charge(connection, userID: userID, bytes: plan.byteDelta, defaultQuota: context.defaultQuotaBytes, logger: logger)
            }
            try await Self.write(connection, zoneRowID: state.rowID, rows: plan.writes, logger: logger)
            state.seq = plan.newSeq
            state.databaseSeq = try await Self.bumpDatabase(connection, zone.database, logger: logger)
            try await connection.run(
                "UPDATE zones SET seq = \(state.seq), db_seq = \(state.databaseSeq) WHERE id = \(state.rowID)", logger: logger)
            let event = ChangeEvent(zone: zone, state: state)
            try await Self.notify(connection, event, logger: logger)
            var outcome = ModifyOutcome(plan: plan, zone: state, event: event)
            if state.shared { outcome.sharedEvents = try await Self.fanOutToParticipants(connection, zone: zone, state: state, logger: logger) }
            return outcome
        }
        // Committed: this process's later reads of the zone do not use a replica behind it.
        if let event = outcome.event { replica?.positions.note(event) }
        return outcome
    }

    package func lookupRecords(_ zone: ZoneKey, names: [String]) async throws -> [String: StoredRecord] {
        if let replica, let found = await replica.lookupRecords(zone, names: names, storage: self) { return found }
        return try await connection { [logger] connection in
            guard let state = try await Self.liveZone(connection, zone, logger: logger, lock: false) else {
                throw StorageErrors.zoneNotFound(zone)
            }
            return try await Self.records(connection, zoneRowID: state.rowID, names: names, logger: logger)
        }
    }

    package func zoneChanges(_ zone: ZoneKey, afterSeq: Int64, limit: Int, maximumBytes: Int64) async throws -> ZoneChangesPage {
        try await zoneChanges(zone, afterSeq: afterSeq, expectedIncarnation: nil, limit: limit, maximumBytes: maximumBytes)
    }

    package func zoneChanges(
        _ zone: ZoneKey, afterSeq: Int64, expectedIncarnation: Int64?, limit: Int, maximumBytes: Int64
    ) async throws -> ZoneChangesPage {
        if let replica,
            let page = await replica.zoneChanges(
                zone, afterSeq: afterSeq, expectedIncarnation: expectedIncarnation, limit: limit, maximumBytes: maximumBytes, storage: self)
        {
            return page
        }
        return try await transaction { [logger] connection in
            guard let state = try await Self.liveZone(connection, zone, logger: logger, lock: false) else {
                throw StorageErrors.zoneNotFound(zone)
            }
            let rows = try await connection.run(Self.zoneChangesQuery(zoneRowID: state.rowID, afterSeq: afterSeq, limit: limit), logger: logger)
            var records: [StoredRecord] = []
            for try await row in rows { records.append(try Self.storedRecord(row.makeRandomAccess())) }
            // The rows are collected by `run`: the byte bound limits the response, the count
            // limit the memory.
            let page = ZoneChangesPage.bounded(records, limit: limit, maximumBytes: maximumBytes)
            return ZoneChangesPage(zone: state, records: page.records, moreComing: page.moreComing)
        }
    }

    package func purgeTombstones(olderThan cutoff: Int64) async throws -> Int {
        try await transaction { [logger] connection in
            try await connection.run(
                """
                UPDATE zones z SET purged_seq = GREATEST(z.purged_seq, t.max_seq)
                FROM (SELECT zone_id, MAX(seq) AS max_seq FROM records WHERE deleted_time IS NOT NULL AND modified_at < \(cutoff) GROUP BY zone_id) t
                WHERE z.id = t.zone_id
                """, logger: logger)
            let rows = try await connection.run(
                "DELETE FROM records WHERE deleted_time IS NOT NULL AND modified_at < \(cutoff) RETURNING zone_id", logger: logger)
            return rows.collect().count
        }
    }

    // MARK: Rows

    static let columns =
        "name, type, fields, change_tag, seq, created_at, created_device, modified_at, modified_device, deleted_time, deleted_device, size"

    /// The rows of the given names in one zone.
    ///
    /// One primary-key probe per name (`LIMIT 1` keeps each probe a separate index lookup):
    /// equality on both key columns of a unique index is estimated at one row whatever the
    /// table's statistics, so the plan does not change while the table grows. The shorter
    /// `name = ANY($names)` was answered, while statistics lagged, by scanning the whole zone
    /// (migration 3 explains).
    static func records(_ connection: PostgresConnection, zoneRowID: Int64, names: [String], logger: Logger) async throws -> [String: StoredRecord] {
        var found: [String: StoredRecord] = [:]
        let rows = try await connection.run(recordsQuery(zoneRowID: zoneRowID, names: names), logger: logger)
        for try await row in rows {
            let record = try storedRecord(row.makeRandomAccess())
            found[record.recordName] = record
        }
        return found
    }

    /// The statement of ``records(_:zoneRowID:names:logger:)``.
    static func recordsQuery(zoneRowID: Int64, names: [String]) -> PostgresQuery {
        """
        SELECT \(unescaped: columns) FROM UNNEST(\(names)::text[]) AS wanted(n)
        CROSS JOIN LATERAL (SELECT * FROM records WHERE zone_id = \(zoneRowID) AND name = wanted.n LIMIT 1) r
        """
    }

    /// The statement of ``zoneChanges(_:afterSeq:limit:maximumBytes:)``. `seq > 0` (true of every record)
    /// lets the partial index `records_changes` serve it.
    static func zoneChangesQuery(zoneRowID: Int64, afterSeq: Int64, limit: Int) -> PostgresQuery {
        """
        SELECT \(unescaped: columns) FROM records
        WHERE zone_id = \(zoneRowID) AND seq > \(afterSeq) AND seq > 0 ORDER BY seq LIMIT \(limit + 1)
        """
    }

    /// Upserts rows with one statement over `UNNEST`ed arrays (a round trip costs more than
    /// the rows), then rewrites their asset references.
    static func write(_ connection: PostgresConnection, zoneRowID: Int64, rows: [StoredRecord], logger: Logger) async throws {
        let names = rows.map(\.recordName)
        let fields = try rows.map { String(decoding: try $0.fieldsJSON(), as: UTF8.self) }
        try await connection.run(
            """
            INSERT INTO records(zone_id, name, type, fields, change_tag, seq, created_at, created_device, modified_at,
                modified_device, deleted_time, deleted_device, size)
            SELECT \(zoneRowID), n, t, f, c, s, ca, cd, ma, md, NULLIF(dt, -1), NULLIF(dd, ''), sz
            FROM UNNEST(\(names)::text[], \(rows.map(\.recordType))::text[], \(fields)::text[], \(rows.map(\.changeTag))::text[],
                \(rows.map(\.seq))::int8[], \(rows.map(\.created.time))::int8[], \(rows.map(\.created.device))::text[],
                \(rows.map(\.modified.time))::int8[], \(rows.map(\.modified.device))::text[],
                \(rows.map { $0.deletion?.time ?? -1 })::int8[], \(rows.map { $0.deletion?.device ?? "" })::text[],
                \(rows.map(\.size))::int8[]) AS u(n, t, f, c, s, ca, cd, ma, md, dt, dd, sz)
            ON CONFLICT (zone_id, name) DO UPDATE SET type = EXCLUDED.type, fields = EXCLUDED.fields,
                change_tag = EXCLUDED.change_tag, seq = EXCLUDED.seq, created_at = EXCLUDED.created_at,
                created_device = EXCLUDED.created_device, modified_at = EXCLUDED.modified_at,
                modified_device = EXCLUDED.modified_device, deleted_time = EXCLUDED.deleted_time,
                deleted_device = EXCLUDED.deleted_device, size = EXCLUDED.size
            """, logger: logger)
        try await connection.run("DELETE FROM asset_refs WHERE zone_id = \(zoneRowID) AND record_name = ANY(\(names))", logger: logger)
        var refNames: [String] = []
        var refChecksums: [String] = []
        for row in rows {
            for checksum in row.assetChecksums {
                refNames.append(row.recordName)
                refChecksums.append(checksum)
            }
        }
        if !refNames.isEmpty {
            try await connection.run(
                """
                INSERT INTO asset_refs(zone_id, record_name, checksum)
                SELECT \(zoneRowID), n, c FROM UNNEST(\(refNames)::text[], \(refChecksums)::text[]) AS u(n, c)
                ON CONFLICT DO NOTHING
                """, logger: logger)
        }
    }

    static func charge(_ connection: PostgresConnection, userID: Int64, bytes: Int64, defaultQuota: Int64, logger: Logger) async throws {
        let rows = try await connection.run(
            "SELECT used_bytes, quota_bytes FROM users WHERE id = \(userID) FOR UPDATE", logger: logger)
        for try await (used, quota) in rows.decode((Int64, Int64?).self) {
            let limit = quota ?? defaultQuota
            if bytes > 0 && used + bytes > limit {
                throw StorageErrors.quotaExceeded(used: used, adding: bytes, quota: limit)
            }
        }
        try await connection.run(
            "UPDATE users SET used_bytes = GREATEST(0, used_bytes + \(bytes)) WHERE id = \(userID)", logger: logger)
    }

    static func storedRecord(_ cells: PostgresRandomAccessRow) throws -> StoredRecord {
        let deletedTime = try cells["deleted_time"].decode(Int64?.self)
        let deletion = try deletedTime.map { HLCStamp(time: $0, device: try cells["deleted_device"].decode(String?.self) ?? "") }
        return StoredRecord(
            recordName: try cells["name"].decode(String.self), recordType: try cells["type"].decode(String.self),
            fields: try FieldsCoding.decode(Data(try cells["fields"].decode(String.self).utf8)),
            changeTag: try cells["change_tag"].decode(String.self), seq: try cells["seq"].decode(Int64.self),
            created: RecordStamp(time: try cells["created_at"].decode(Int64.self), device: try cells["created_device"].decode(String.self)),
            modified: RecordStamp(time: try cells["modified_at"].decode(Int64.self), device: try cells["modified_device"].decode(String.self)),
            deletion: deletion, size: try cells["size"].decode(Int64.self))
    }
}
