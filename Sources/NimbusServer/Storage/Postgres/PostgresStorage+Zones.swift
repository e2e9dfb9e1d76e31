import Foundation
import NimbusWire
import PostgresNIO

extension PostgresStorage {
    package func createZone(_ zone: ZoneKey, now: Int64) async throws -> ZoneState {
        let db = zone.database
        do {
            return try await transaction { [logger] connection in
            let dbSeq = try await Self.bumpDatabase(connection, db, logger: logger)
            let incarnation = ZoneIncarnation.random()
            let rows = try await connection.run(
                """
                INSERT INTO zones(container, scope, owner_id, name, seq, purged_seq, db_seq, deleted, created_at, incarnation)
                VALUES (\(db.container), \(db.scope.rawValue), \(db.ownerID), \(zone.zoneName), 0, 0, \(dbSeq), false, \(now), \(incarnation))
                ON CONFLICT (container, scope, owner_id, name) WHERE NOT deleted DO NOTHING RETURNING id
                """, logger: logger)
            var createdID: Int64?
            for try await id in rows.decode(Int64.self) { createdID = id }
            guard let createdID else {
                // The zone existed: undo the database bump by rolling back.
                throw ExistingZone(state: try await Self.liveZone(connection, zone, logger: logger, lock: false))
            }
            let state = ZoneState(rowID: createdID, incarnation: incarnation, zoneName: zone.zoneName, seq: 0, purgedSeq: 0, databaseSeq: dbSeq)
            try await Self.notify(connection, ChangeEvent(zone: zone, state: state), logger: logger)
            return state
            }
        } catch let existing as ExistingZone {
            guard let state = existing.state else { throw StorageErrors.zoneNotFound(zone) }
            return state
        }
    }

    package func zone(_ zone: ZoneKey) async throws -> ZoneState? {
        try await connection { [logger] connection in try await Self.liveZone(connection, zone, logger: logger, lock: false) }
    }

    package func listZones(_ database: DatabaseKey, after cursor: ZoneListCursor?, limit: Int) async throws -> [ZoneState] {
        if database.scope == .shared { return try await sharedZones(database, after: cursor, limit: limit) }
        let rows = try await query(
            """
            SELECT id, incarnation, name, seq, purged_seq, db_seq, deleted, shared FROM zones
            WHERE container = \(database.container) AND scope = \(database.scope.rawValue) AND owner_id = \(database.ownerID) AND NOT deleted
            AND name > \(cursor?.zoneName ?? "")
            ORDER BY name LIMIT \(limit)
            """, logger: logger)
        var zones: [ZoneState] = []
        for try await row in rows { zones.append(try Self.zoneState(row.makeRandomAccess())) }
        return zones
    }

    package func deleteZone(_ zone: ZoneKey, now: Int64) async throws -> ChangeEvent {
        let event: ChangeEvent = try await transaction { [logger] connection in
            guard var state = try await Self.liveZone(connection, zone, logger: logger, lock: true) else {
                throw StorageErrors.zoneNotFound(zone)
            }
            var released: Int64 = 0
            for try await bytes in try await connection.run(
                "SELECT COALESCE(SUM(size), 0)::int8 FROM records WHERE zone_id = \(state.rowID)", logger: logger
            ).decode(Int64.self) { released = bytes }
            try await connection.run("DELETE FROM records WHERE zone_id = \(state.rowID)", logger: logger)
            try await connection.run("DELETE FROM asset_refs WHERE zone_id = \(state.rowID)", logger: logger)
            state.databaseSeq = try await Self.bumpDatabase(connection, zone.database, logger: logger)
            try await connection.run(
                "UPDATE zones SET deleted = true, deleted_at = \(now), db_seq = \(state.databaseSeq) WHERE id = \(state.rowID)",
                logger: logger)
            if zone.database.scope == .private {
                try await connection.run(
                    "UPDATE users SET used_bytes = GREATEST(0, used_bytes - \(released)) WHERE id = \(zone.database.ownerID)",
                    logger: logger)
            }
            let event = ChangeEvent(zone: zone, state: state, zoneDeleted: true)
            try await Self.notify(connection, event, logger: logger)
            if state.shared { _ = try await Self.endShare(connection, zone: zone, state: state, now: now, logger: logger) }
            return event
        }
        // Committed: this process no longer reads the zone from a replica that still has it.
        replica?.positions.note(event)
        return event
    }

    package func databaseChanges(_ database: DatabaseKey, afterSeq: Int64, limit: Int) async throws -> DatabaseChangesPage {
        try await transaction { [logger] connection in
            let (current, purgedSeq) = try await Self.positionAndHorizon(connection, database, logger: logger)
            if database.scope == .shared {
                let zones = try await Self.sharedZoneChanges(connection, database, afterSeq: afterSeq, limit: limit + 1, logger: logger)
                let page = Array(zones.prefix(limit))
                let more = zones.count > limit
                let seq = more ? (page.last?.databaseSeq ?? afterSeq) : max(current, afterSeq)
                return DatabaseChangesPage(zones: page, databaseSeq: seq, moreComing: more, purgedSeq: purgedSeq, currentSeq: current)
            }
            let rows = try await connection.run(
                """
                SELECT name, deleted, db_seq FROM zones
                WHERE container = \(database.container) AND scope = \(database.scope.rawValue) AND owner_id = \(database.ownerID)
                  AND db_seq > \(afterSeq)
                ORDER BY db_seq LIMIT \(limit + 1)
                """, logger: logger)
            var zones: [ZoneChange] = []
            for try await (name, deleted, seq) in rows.decode((String, Bool, Int64).self) {
                zones.append(ZoneChange(zoneName: name, deleted: deleted, databaseSeq: seq))
            }
            let more = zones.count > limit
            let page = Array(zones.prefix(limit))
            let seq = more ? (page.last?.databaseSeq ?? afterSeq) : max(current, afterSeq)
            return DatabaseChangesPage(zones: page, databaseSeq: seq, moreComing: more, purgedSeq: purgedSeq, currentSeq: current)
        }
    }

    package func databasePosition(_ database: DatabaseKey) async throws -> Int64 {
        try await connection { [logger] connection in try await Self.position(connection, database, logger: logger) }
    }

    // MARK: Helpers

    struct ExistingZone: Error {
        var state: ZoneState?
    }

    static func position(_ connection: PostgresConnection, _ database: DatabaseKey, logger: Logger) async throws -> Int64 {
        let rows = try await connection.run(
            "SELECT seq FROM databases WHERE container = \(database.container) AND scope = \(database.scope.rawValue) AND owner_id = \(database.ownerID)",
            logger: logger)
        for try await seq in rows.decode(Int64.self) { return seq }
        return 0
    }

    /// A database's position and its tombstone horizon (`purged_seq`).
    static func positionAndHorizon(_ connection: PostgresConnection, _ database: DatabaseKey, logger: Logger) async throws -> (Int64, Int64) {
        let rows = try await connection.run(
            """
            SELECT seq, purged_seq FROM databases
            WHERE container = \(database.container) AND scope = \(database.scope.rawValue) AND owner_id = \(database.ownerID)
            """, logger: logger)
        for try await (seq, purged) in rows.decode((Int64, Int64).self) { return (seq, purged) }
        return (0, 0)
    }

    static func liveZone(_ connection: PostgresConnection, _ zone: ZoneKey, logger: Logger, lock: Bool) async throws -> ZoneState? {
        let db = zone.database
        let sql = """
            SELECT id, incarnation, name, seq, purged_seq, db_seq, deleted, shared FROM zones
            WHERE container = $1 AND scope = $2 AND owner_id = $3 AND name = $4 AND NOT deleted
            """ + (lock ? " FOR UPDATE" : "")
        var binds = PostgresBindings()
        binds.append(db.container)
        binds.append(db.scope.rawValue)
        binds.append(db.ownerID)
        binds.append(zone.zoneName)
        for try await row in try await connection.run(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger) {
            return try zoneState(row.makeRandomAccess())
        }
        return nil
    }

    static func bumpDatabase(_ connection: PostgresConnection, _ database: DatabaseKey, logger: Logger) async throws -> Int64 {
        let rows = try await connection.run(
            """
            INSERT INTO databases(container, scope, owner_id, seq) VALUES (\(database.container), \(database.scope.rawValue), \(database.ownerID), 1)
            ON CONFLICT (container, scope, owner_id) DO UPDATE SET seq = databases.seq + 1 RETURNING seq
            """, logger: logger)
        for try await seq in rows.decode(Int64.self) { return seq }
        throw WireError(.internalError, "The database sequence did not advance.")
    }

    static func notify(_ connection: PostgresConnection, _ event: ChangeEvent, logger: Logger) async throws {
        let payload = String(decoding: try JSONEncoder().encode(event), as: UTF8.self)
        try await connection.run("SELECT pg_notify(\(channel), \(payload))", logger: logger)
    }

    static func zoneState(_ cells: PostgresRandomAccessRow) throws -> ZoneState {
        ZoneState(
            rowID: try cells["id"].decode(Int64.self), incarnation: try cells["incarnation"].decode(Int64.self), zoneName: try cells["name"].decode(String.self),
            seq: try cells["seq"].decode(Int64.self), purgedSeq: try cells["purged_seq"].decode(Int64.self),
            databaseSeq: try cells["db_seq"].decode(Int64.self), deleted: try cells["deleted"].decode(Bool.self),
            shared: try cells["shared"].decode(Bool.self),
            ownerName: cells.contains("owner_name") ? try cells["owner_name"].decode(String.self) : nil)
    }
}
