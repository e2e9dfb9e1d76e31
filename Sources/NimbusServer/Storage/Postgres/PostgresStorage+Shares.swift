import Foundation
import NimbusWire
import PostgresNIO

extension PostgresStorage {
    package func share(of zone: ZoneKey) async throws -> StoredShare? {
        try await transaction { [logger] connection in
            guard let state = try await Self.liveZone(connection, zone, logger: logger, lock: false) else {
                throw StorageErrors.zoneNotFound(zone)
            }
            return try await Self.loadShare(connection, zone: zone, state: state, logger: logger)
        }
    }

    package func saveShare(_ zone: ZoneKey, participants: [ShareMember], publicPermission: SharePermission, now: Int64) async throws -> ShareSaveOutcome {
        try await transaction { [logger] connection in
            guard let state = try await Self.liveZone(connection, zone, logger: logger, lock: true) else {
                throw StorageErrors.zoneNotFound(zone)
            }
            let inserted = try await connection.run(
                """
                INSERT INTO shares(zone_id, public_permission, created_at, modified_at, share_id, secret)
                VALUES (\(state.rowID), \(publicPermission.rawValue), \(now), \(now), \(ShareSecrets.newShareID()), \(ShareSecrets.newSecret()))
                ON CONFLICT (zone_id) DO UPDATE SET public_permission = EXCLUDED.public_permission, modified_at = EXCLUDED.modified_at
                RETURNING (xmax = 0)
                """, logger: logger)
            var created = false
            for try await value in inserted.decode(Bool.self) { created = value }
            try await connection.run("UPDATE zones SET shared = true WHERE id = \(state.rowID)", logger: logger)
            var current: [Int64: ShareAdmission.Membership] = [:]
            for try await (userID, permission, stateText, isPublic) in try await connection.run(
                "SELECT user_id, permission, state, is_public FROM share_participants WHERE zone_id = \(state.rowID) AND state <> 'ended'",
                logger: logger
            ).decode((Int64, String, String, Bool).self) {
                current[userID] = ShareAdmission.Membership(
                    state: try MembershipState.stored(stateText),
                    permission: try SharePermission.stored(permission, in: "share_participants"), isPublic: isPublic)
            }
            let wanted = Dictionary(participants.compactMap { member in member.userID.map { ($0, member) } }, uniquingKeysWith: { _, last in last })
            // Ascending user ids: every writer advances shared databases in the same order.
            for userID in Set(current.keys).union(wanted.keys).sorted() {
                switch ShareSaveStep.plan(current: current[userID], named: wanted[userID]?.permission, publicPermission: publicPermission) {
                case .none:
                    break
                case .invite(let permission):
                    // A row of an ended share keeps its db_seq: its tombstone stays where it is.
                    try await connection.run(
                        """
                        INSERT INTO share_participants(zone_id, user_id, container, permission, removed, state, is_public, db_seq, added_at)
                        VALUES (\(state.rowID), \(userID), \(zone.database.container), \(permission.rawValue), true, 'invited', false, 0, \(now))
                        ON CONFLICT (zone_id, user_id) DO UPDATE SET permission = EXCLUDED.permission, removed = true,
                            state = 'invited', is_public = false, added_at = EXCLUDED.added_at
                        """, logger: logger)
                case .update(let permission, let newState, let isPublic):
                    try await connection.run(
                        """
                        UPDATE share_participants SET permission = \(permission.rawValue), state = \(newState.rawValue), is_public = \(isPublic)
                        WHERE zone_id = \(state.rowID) AND user_id = \(userID)
                        """, logger: logger)
                case .revoke:
                    _ = try await Self.fanOutToParticipants(
                        connection, zone: zone, state: state, only: [userID], removedAt: now, to: .removed, logger: logger)
                case .markRemoved:
                    try await connection.run(
                        """
                        UPDATE share_participants SET state = 'removed', removed = true, removed_at = COALESCE(removed_at, \(now))
                        WHERE zone_id = \(state.rowID) AND user_id = \(userID)
                        """, logger: logger)
                }
            }
            try await connection.run("DELETE FROM share_invitations WHERE zone_id = \(state.rowID)", logger: logger)
            let pending = participants.filter { $0.userID == nil }
            if !pending.isEmpty {
                try await connection.run(
                    """
                    INSERT INTO share_invitations(zone_id, user_name, permission, invited_at)
                    SELECT \(state.rowID), name, permission, \(now) FROM UNNEST(\(pending.map(\.userName))::text[], \(pending.map(\.permission.rawValue))::text[]) AS t(name, permission)
                    """, logger: logger)
            }
            guard let share = try await Self.loadShare(connection, zone: zone, state: state, logger: logger) else {
                throw WireError(.internalError, "The saved share was not found.")
            }
            return ShareSaveOutcome(share: share, created: created)
        }
    }

    package func deleteShare(_ zone: ZoneKey, now: Int64) async throws {
        try await transaction { [logger] connection in
            guard let state = try await Self.liveZone(connection, zone, logger: logger, lock: true) else {
                throw StorageErrors.zoneNotFound(zone)
            }
            let share = try await connection.run("SELECT 1 FROM shares WHERE zone_id = \(state.rowID)", logger: logger).collect()
            guard !share.isEmpty else { throw StorageErrors.notShared(zone) }
            _ = try await Self.endShare(connection, zone: zone, state: state, now: now, logger: logger)
        }
    }

    package func leaveShare(_ zone: ZoneKey, userID: Int64, now: Int64) async throws {
        try await transaction { [logger] connection in
            guard let state = try await Self.liveZone(connection, zone, logger: logger, lock: true) else {
                throw StorageErrors.zoneNotFound(zone)
            }
            let removed = try await Self.fanOutToParticipants(
                connection, zone: zone, state: state, only: [userID], removedAt: now, to: .left, logger: logger)
            guard !removed.isEmpty else { throw StorageErrors.zoneNotFound(zone) }
        }
    }

    package func sharedZoneGrant(container: String, ownerName: String, zoneName: String, userID: Int64) async throws -> SharedZoneGrant? {
        let rows = try await query(
            """
            SELECT z.owner_id, p.permission FROM users u
            JOIN zones z ON z.owner_id = u.id AND z.container = \(container) AND z.scope = 'private' AND z.name = \(zoneName) AND NOT z.deleted
            JOIN share_participants p ON p.zone_id = z.id AND p.user_id = \(userID) AND NOT p.removed
            WHERE u.name = \(ownerName)
            """, logger: logger)
        for try await (ownerID, permission) in rows.decode((Int64, String).self) {
            return SharedZoneGrant(
                zone: ZoneKey(database: DatabaseKey(container: container, scope: .private, ownerID: ownerID), zoneName: zoneName),
                permission: try SharePermission.stored(permission, in: "share_participants"))
        }
        return nil
    }

    // MARK: Helpers shared with modify and zone deletion

    /// Advances the shared database of the zone's accepted participants (all, or `only` those
    /// listed) in one statement, and announces each change. With `removedAt` (ms since 1970)
    /// the memberships become tombstones removed at that time, in state `to`.
    static func fanOutToParticipants(
        _ connection: PostgresConnection, zone: ZoneKey, state: ZoneState, only: [Int64]? = nil, removedAt: Int64? = nil,
        to newState: MembershipState = .removed, logger: Logger
    ) async throws -> [ChangeEvent] {
        let removing = removedAt != nil
        let stateText = removing ? newState.rawValue : MembershipState.accepted.rawValue
        let rows = try await connection.run(
            """
            WITH members AS (
                SELECT user_id FROM share_participants
                WHERE zone_id = \(state.rowID) AND NOT removed AND (\(only == nil) OR user_id = ANY(\(only ?? [])::int8[]))),
            bumped AS (
                INSERT INTO databases(container, scope, owner_id, seq)
                SELECT \(zone.database.container), 'shared', user_id, 1 FROM members ORDER BY user_id
                ON CONFLICT (container, scope, owner_id) DO UPDATE SET seq = databases.seq + 1
                RETURNING owner_id, seq)
            UPDATE share_participants p SET db_seq = b.seq, removed = \(removing), removed_at = \(removedAt), state = \(stateText)
            FROM bumped b WHERE p.zone_id = \(state.rowID) AND p.user_id = b.owner_id
            RETURNING p.user_id, p.db_seq, (SELECT name FROM users WHERE id = \(zone.database.ownerID))
            """, logger: logger)
        var events: [ChangeEvent] = []
        for try await (userID, seq, ownerName) in rows.decode((Int64, Int64, String).self) {
            events.append(ChangeEvent(sharedZone: zone, ownerName: ownerName, state: state, participantID: userID, databaseSeq: seq, removed: removing))
        }
        try await notify(connection, events, logger: logger)
        return events
    }

    /// Removes every participant, the share and the zone's shared mark (share deleted, zone deleted).
    static func endShare(
        _ connection: PostgresConnection, zone: ZoneKey, state: ZoneState, now: Int64, logger: Logger
    ) async throws -> [ChangeEvent] {
        let events = try await fanOutToParticipants(connection, zone: zone, state: state, removedAt: now, to: .ended, logger: logger)
        // The others were never or are no longer in a shared database: rows never in one go now.
        try await connection.run("DELETE FROM share_participants WHERE zone_id = \(state.rowID) AND removed AND db_seq = 0", logger: logger)
        try await connection.run(
            """
            UPDATE share_participants SET state = 'ended', removed_at = COALESCE(removed_at, \(now))
            WHERE zone_id = \(state.rowID) AND state <> 'ended'
            """, logger: logger)
        try await connection.run("DELETE FROM share_invitations WHERE zone_id = \(state.rowID)", logger: logger)
        try await connection.run("DELETE FROM shares WHERE zone_id = \(state.rowID)", logger: logger)
        try await connection.run("UPDATE zones SET shared = false WHERE id = \(state.rowID)", logger: logger)
        return events
    }

    /// Announces several events with one statement.
    static func notify(_ connection: PostgresConnection, _ events: [ChangeEvent], logger: Logger) async throws {
        guard !events.isEmpty else { return }
        let encoder = JSONEncoder()
        let payloads = try events.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        try await connection.run("SELECT pg_notify(\(channel), payload) FROM UNNEST(\(payloads)::text[]) AS payload", logger: logger)
    }

    static func loadShare(_ connection: PostgresConnection, zone: ZoneKey, state: ZoneState, logger: Logger) async throws -> StoredShare? {
        var header: (SharePermission, String, String)?
        for try await (text, shareID, secret) in try await connection.run(
            "SELECT public_permission, share_id, secret FROM shares WHERE zone_id = \(state.rowID)", logger: logger
        ).decode((String, String, String).self) {
            header = (try SharePermission.stored(text, in: "shares", column: "public_permission"), shareID, secret)
        }
        guard let (publicPermission, shareID, secret) = header else { return nil }
        var members: [ShareMember] = []
        for try await (userID, name, permission, stateText, isPublic) in try await connection.run(
            """
            SELECT p.user_id, u.name, p.permission, p.state, p.is_public FROM share_participants p JOIN users u ON u.id = p.user_id
            WHERE p.zone_id = \(state.rowID) AND p.state <> 'ended'
            """, logger: logger
        ).decode((Int64, String, String, String, Bool).self) {
            members.append(ShareMember(
                userID: userID, userName: name, permission: try SharePermission.stored(permission, in: "share_participants"),
                state: try MembershipState.stored(stateText), isPublic: isPublic))
        }
        for try await (name, permission) in try await connection.run(
            "SELECT user_name, permission FROM share_invitations WHERE zone_id = \(state.rowID)", logger: logger
        ).decode((String, String).self) {
            members.append(ShareMember(userID: nil, userName: name, permission: try SharePermission.stored(permission, in: "share_invitations")))
        }
        return StoredShare(
            zone: zone, ownerName: try await userName(connection, zone.database.ownerID, logger: logger),
            shareID: shareID, secret: secret, publicPermission: publicPermission, participants: members)
    }

    static func userName(_ connection: PostgresConnection, _ userID: Int64, logger: Logger) async throws -> String {
        for try await name in try await connection.run("SELECT name FROM users WHERE id = \(userID)", logger: logger).decode(String.self) {
            return name
        }
        return ""
    }

    // MARK: The shared database

    /// The zones shared with the user a shared database key names, ordered by zone and owner name.
    func sharedZones(_ database: DatabaseKey, after cursor: ZoneListCursor?, limit: Int) async throws -> [ZoneState] {
        let rows = try await query(
            """
            SELECT z.id, z.incarnation, z.name, z.seq, z.purged_seq, z.db_seq, z.deleted, z.shared, u.name AS owner_name
            FROM share_participants p JOIN zones z ON z.id = p.zone_id JOIN users u ON u.id = z.owner_id
            WHERE p.user_id = \(database.ownerID) AND p.container = \(database.container) AND NOT p.removed AND NOT z.deleted
            AND (z.name, u.name) > (\(cursor?.zoneName ?? ""), \(cursor?.ownerName ?? ""))
            ORDER BY z.name, u.name LIMIT \(limit)
            """, logger: logger)
        var zones: [ZoneState] = []
        for try await row in rows { zones.append(try Self.zoneState(row.makeRandomAccess())) }
        return zones
    }

    /// Entries of a shared database changed after `afterSeq`, oldest first.
    static func sharedZoneChanges(
        _ connection: PostgresConnection, _ database: DatabaseKey, afterSeq: Int64, limit: Int, logger: Logger
    ) async throws -> [ZoneChange] {
        let rows = try await connection.run(
            """
            SELECT z.name, u.name, (p.removed OR z.deleted), p.db_seq
            FROM share_participants p JOIN zones z ON z.id = p.zone_id JOIN users u ON u.id = z.owner_id
            WHERE p.user_id = \(database.ownerID) AND p.container = \(database.container) AND p.db_seq > \(afterSeq)
            ORDER BY p.db_seq LIMIT \(limit)
            """, logger: logger)
        var zones: [ZoneChange] = []
        for try await (name, owner, gone, seq) in rows.decode((String, String, Bool, Int64).self) {
            zones.append(ZoneChange(zoneName: name, deleted: gone, databaseSeq: seq, ownerName: owner))
        }
        return zones
    }
}
