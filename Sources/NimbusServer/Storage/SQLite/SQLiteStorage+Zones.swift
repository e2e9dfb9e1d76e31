import Foundation
import GRDB
import NimbusWire

extension SQLiteStorage {
    package func createZone(_ zone: ZoneKey, now: Int64) async throws -> ZoneState {
        let (state, created) = try await pool.write { db -> (ZoneState, Bool) in
            if let existing = try Self.liveZone(db, zone) { return (existing, false) }
            let dbSeq = try Self.bumpDatabase(db, zone.database)
            let incarnation = ZoneIncarnation.random()
            try db.execute(
                sql: """
                    INSERT INTO zones(container, scope, owner_id, name, seq, purged_seq, db_seq, deleted, created_at, incarnation)
                    VALUES (?, ?, ?, ?, 0, 0, ?, 0, ?, ?)
                    """,
                arguments: [zone.database.container, zone.database.scope.rawValue, zone.database.ownerID, zone.zoneName, dbSeq, now, incarnation])
            return (ZoneState(
                rowID: db.lastInsertedRowID, incarnation: incarnation, zoneName: zone.zoneName, seq: 0, purgedSeq: 0, databaseSeq: dbSeq), true)
        }
        if created { changeFeed.deliver(ChangeEvent(zone: zone, state: state)) }
        return state
    }

    package func zone(_ zone: ZoneKey) async throws -> ZoneState? {
        try await pool.read { db in try Self.liveZone(db, zone) }
    }

    package func listZones(_ database: DatabaseKey, after cursor: ZoneListCursor?, limit: Int) async throws -> [ZoneState] {
        try await pool.read { db in
            if database.scope == .shared { return try Self.sharedZones(db, database, after: cursor, limit: limit) }
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM zones WHERE container = ? AND scope = ? AND owner_id = ? AND deleted = 0 AND name > ?
                    ORDER BY name LIMIT ?
                    """,
                arguments: [database.container, database.scope.rawValue, database.ownerID, cursor?.zoneName ?? "", limit]
            ).map { try Self.zoneState($0) }
        }
    }

    package func deleteZone(_ zone: ZoneKey, now: Int64) async throws -> ChangeEvent {
        let (event, sharedEvents) = try await pool.write { db -> (ChangeEvent, [ChangeEvent]) in
            guard var state = try Self.liveZone(db, zone) else { throw StorageErrors.zoneNotFound(zone) }
            let released: Int64 = try Int64.fetchOne(
                db, sql: "SELECT COALESCE(SUM(size), 0) FROM records WHERE zone_id = ?", arguments: [state.rowID]) ?? 0
            try db.execute(sql: "DELETE FROM records WHERE zone_id = ?", arguments: [state.rowID])
            try db.execute(sql: "DELETE FROM asset_refs WHERE zone_id = ?", arguments: [state.rowID])
            state.databaseSeq = try Self.bumpDatabase(db, zone.database)
            try db.execute(
                sql: "UPDATE zones SET deleted = 1, deleted_at = ?, db_seq = ? WHERE id = ?",
                arguments: [now, state.databaseSeq, state.rowID])
            if zone.database.scope == .private {
                try db.execute(
                    sql: "UPDATE users SET used_bytes = MAX(0, used_bytes - ?) WHERE id = ?",
                    arguments: [released, zone.database.ownerID])
            }
            let sharedEvents = state.shared ? try Self.endShare(db, zone: zone, state: state, now: now) : []
            return (ChangeEvent(zone: zone, state: state, zoneDeleted: true), sharedEvents)
        }
        changeFeed.deliver(event)
        for event in sharedEvents { changeFeed.deliver(event) }
        return event
    }

    package func databaseChanges(_ database: DatabaseKey, afterSeq: Int64, limit: Int) async throws -> DatabaseChangesPage {
        try await pool.read { db in
            let position = try Row.fetchOne(
                db, sql: "SELECT seq, purged_seq FROM databases WHERE container = ? AND scope = ? AND owner_id = ?",
                arguments: [database.container, database.scope.rawValue, database.ownerID])
            let current: Int64 = try position?.storedIfPresent("seq", in: "databases") ?? 0
            let rows = database.scope == .shared
                ? try Self.sharedZoneChanges(db, database, afterSeq: afterSeq, limit: limit + 1)
                : try Row.fetchAll(
                    db,
                    sql: """
                        SELECT name, deleted, db_seq FROM zones
                        WHERE container = ? AND scope = ? AND owner_id = ? AND db_seq > ?
                        ORDER BY db_seq LIMIT ?
                        """,
                    arguments: [database.container, database.scope.rawValue, database.ownerID, afterSeq, limit + 1]
                ).map {
                    ZoneChange(
                        zoneName: try $0.stored("name", in: "zones"), deleted: try $0.stored("deleted", in: "zones") as Bool,
                        databaseSeq: try $0.stored("db_seq", in: "zones"))
                }
            let more = rows.count > limit
            let page = rows.prefix(limit)
            let seq = more ? (page.last?.databaseSeq ?? afterSeq) : max(current, afterSeq)
            return DatabaseChangesPage(
                zones: Array(page), databaseSeq: seq, moreComing: more, purgedSeq: try position?.storedIfPresent("purged_seq", in: "databases") ?? 0,
                currentSeq: current)
        }
    }

    package func databasePosition(_ database: DatabaseKey) async throws -> Int64 {
        try await pool.read { db in
            try Int64.fetchOne(
                db, sql: "SELECT seq FROM databases WHERE container = ? AND scope = ? AND owner_id = ?",
                arguments: [database.container, database.scope.rawValue, database.ownerID]) ?? 0
        }
    }

    static func liveZone(_ db: Database, _ zone: ZoneKey) throws -> ZoneState? {
        try Row.fetchOne(
            db, sql: "SELECT * FROM zones WHERE container = ? AND scope = ? AND owner_id = ? AND name = ? AND deleted = 0",
            arguments: [zone.database.container, zone.database.scope.rawValue, zone.database.ownerID, zone.zoneName]
        ).map { try zoneState($0) }
    }

    static func bumpDatabase(_ db: Database, _ database: DatabaseKey) throws -> Int64 {
        try Int64.fetchOne(
            db,
            sql: """
                INSERT INTO databases(container, scope, owner_id, seq) VALUES (?, ?, ?, 1)
                ON CONFLICT(container, scope, owner_id) DO UPDATE SET seq = seq + 1 RETURNING seq
                """,
            arguments: [database.container, database.scope.rawValue, database.ownerID])!
    }

    static func zoneState(_ row: Row) throws -> ZoneState {
        ZoneState(
            rowID: try row.stored("id", in: "zones"), incarnation: try row.stored("incarnation", in: "zones"), zoneName: try row.stored("name", in: "zones"), seq: try row.stored("seq", in: "zones"),
            purgedSeq: try row.stored("purged_seq", in: "zones"), databaseSeq: try row.stored("db_seq", in: "zones"),
            deleted: try row.stored("deleted", in: "zones") as Bool, shared: try row.stored("shared", in: "zones") as Bool,
            ownerName: try row.storedIfPresent("owner_name", in: "users"))
    }
}
