import Foundation
import GRDB
import NimbusWire

extension SQLiteStorage {
    package func share(of zone: ZoneKey) async throws -> StoredShare? {
        try await pool.read { db in
            guard let state = try Self.liveZone(db, zone) else { throw StorageErrors.zoneNotFound(zone) }
            return try Self.loadShare(db, zone: zone, state: state)
        }
    }

    package func saveShare(_ zone: ZoneKey, participants: [ShareMember], publicPermission: SharePermission, now: Int64) async throws -> ShareSaveOutcome {
        let (outcome, events) = try await pool.write { db -> (ShareSaveOutcome, [ChangeEvent]) in
            guard let state = try Self.liveZone(db, zone) else { throw StorageErrors.zoneNotFound(zone) }
            let created = try Row.fetchOne(db, sql: "SELECT 1 FROM shares WHERE zone_id = ?", arguments: [state.rowID]) == nil
            if created {
                try db.execute(
                    sql: """
                        INSERT INTO shares(zone_id, public_permission, created_at, modified_at, share_id, secret)
                        VALUES (?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [state.rowID, publicPermission.rawValue, now, now, ShareSecrets.newShareID(), ShareSecrets.newSecret()])
            } else {
                try db.execute(
                    sql: "UPDATE shares SET public_permission = ?, modified_at = ? WHERE zone_id = ?",
                    arguments: [publicPermission.rawValue, now, state.rowID])
            }
            try db.execute(sql: "UPDATE zones SET shared = 1 WHERE id = ?", arguments: [state.rowID])
            let ownerName = try Self.userName(db, zone.database.ownerID)
            var current: [Int64: ShareAdmission.Membership] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT user_id, permission, state, is_public FROM share_participants WHERE zone_id = ? AND state <> 'ended'",
                arguments: [state.rowID]) {
                current[try row.stored("user_id", in: "share_participants")] = try Self.membership(row)
            }
            let wanted = Dictionary(participants.compactMap { member in member.userID.map { ($0, member) } }, uniquingKeysWith: { _, last in last })
            var events: [ChangeEvent] = []
            // Ascending user ids: every writer advances shared databases in the same order.
            for userID in Set(current.keys).union(wanted.keys).sorted() {
                let step = ShareSaveStep.plan(current: current[userID], named: wanted[userID]?.permission, publicPermission: publicPermission)
                switch step {
                case .none:
                    break
                case .invite(let permission):
                    // A row of an ended share keeps its db_seq: its tombstone stays where it is.
                    try db.execute(
                        sql: """
                            INSERT INTO share_participants(zone_id, user_id, container, permission, removed, state, is_public, db_seq, added_at)
                            VALUES (?, ?, ?, ?, 1, 'invited', 0, 0, ?)
                            ON CONFLICT(zone_id, user_id) DO UPDATE SET permission = excluded.permission, removed = 1,
                                state = 'invited', is_public = 0, added_at = excluded.added_at
                            """,
                        arguments: [state.rowID, userID, zone.database.container, permission.rawValue, now])
                case .update(let permission, let newState, let isPublic):
                    try db.execute(
                        sql: "UPDATE share_participants SET permission = ?, state = ?, is_public = ? WHERE zone_id = ? AND user_id = ?",
                        arguments: [permission.rawValue, newState.rawValue, isPublic, state.rowID, userID])
                case .revoke:
                    events.append(try Self.removeParticipant(
                        db, zone: zone, ownerName: ownerName, state: state, userID: userID, now: now, to: .removed))
                case .markRemoved:
                    try db.execute(
                        sql: """
                            UPDATE share_participants SET state = 'removed', removed = 1, removed_at = COALESCE(removed_at, ?)
                            WHERE zone_id = ? AND user_id = ?
                            """,
                        arguments: [now, state.rowID, userID])
                }
            }
            try db.execute(sql: "DELETE FROM share_invitations WHERE zone_id = ?", arguments: [state.rowID])
            for member in participants where member.userID == nil {
                try db.execute(
                    sql: "INSERT INTO share_invitations(zone_id, user_name, permission, invited_at) VALUES (?, ?, ?, ?)",
                    arguments: [state.rowID, member.userName, member.permission.rawValue, now])
            }
            guard let share = try Self.loadShare(db, zone: zone, state: state) else {
                throw WireError(.internalError, "The saved share was not found.")
            }
            return (ShareSaveOutcome(share: share, created: created), events)
        }
        for event in events { changeFeed.deliver(event) }
        return outcome
    }

    package func deleteShare(_ zone: ZoneKey, now: Int64) async throws {
        let events = try await pool.write { db -> [ChangeEvent] in
            guard let state = try Self.liveZone(db, zone) else { throw StorageErrors.zoneNotFound(zone) }
            guard try Row.fetchOne(db, sql: "SELECT 1 FROM shares WHERE zone_id = ?", arguments: [state.rowID]) != nil else {
                throw StorageErrors.notShared(zone)
            }
            return try Self.endShare(db, zone: zone, state: state, now: now)
        }
        for event in events { changeFeed.deliver(event) }
    }

    package func leaveShare(_ zone: ZoneKey, userID: Int64, now: Int64) async throws {
        let event = try await pool.write { db -> ChangeEvent in
            guard let state = try Self.liveZone(db, zone),
                try Row.fetchOne(
                    db, sql: "SELECT 1 FROM share_participants WHERE zone_id = ? AND user_id = ? AND removed = 0",
                    arguments: [state.rowID, userID]) != nil
            else { throw StorageErrors.zoneNotFound(zone) }
            return try Self.removeParticipant(
                db, zone: zone, ownerName: try Self.userName(db, zone.database.ownerID), state: state, userID: userID, now: now, to: .left)
        }
        changeFeed.deliver(event)
    }

    package func sharedZoneGrant(container: String, ownerName: String, zoneName: String, userID: Int64) async throws -> SharedZoneGrant? {
        try await pool.read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT z.owner_id, p.permission FROM users u
                    JOIN zones z ON z.owner_id = u.id AND z.container = ? AND z.scope = 'private' AND z.name = ? AND z.deleted = 0
                    JOIN share_participants p ON p.zone_id = z.id AND p.user_id = ? AND p.removed = 0
                    WHERE u.name = ?
                    """,
                arguments: [container, zoneName, userID, ownerName])
            return try row.map { row in
                SharedZoneGrant(
                    zone: ZoneKey(
                        database: DatabaseKey(container: container, scope: .private, ownerID: try row.stored("owner_id", in: "zones")),
                        zoneName: zoneName),
                    permission: try SharePermission.stored(try row.stored("permission", in: "share_participants"), in: "share_participants"))
            }
        }
    }

    // MARK: Helpers shared with modify and zone deletion

    /// Advances the shared database of every participant of a changed zone; returns the
    /// events their devices hear.
    static func fanOutToParticipants(_ db: Database, zone: ZoneKey, state: ZoneState) throws -> [ChangeEvent] {
        let members = try Int64.fetchAll(
            db, sql: "SELECT user_id FROM share_participants WHERE zone_id = ? AND removed = 0 ORDER BY user_id", arguments: [state.rowID])
        guard !members.isEmpty else { return [] }
        let ownerName = try userName(db, zone.database.ownerID)
        return try members.map { userID in
            let seq = try bumpDatabase(db, DatabaseKey(container: zone.database.container, scope: .shared, ownerID: userID))
            try db.execute(
                sql: "UPDATE share_participants SET db_seq = ? WHERE zone_id = ? AND user_id = ?", arguments: [seq, state.rowID, userID])
            return ChangeEvent(sharedZone: zone, ownerName: ownerName, state: state, participantID: userID, databaseSeq: seq, removed: false)
        }
    }

    /// Removes every participant, the share and the zone's shared mark (share deleted, zone deleted).
    static func endShare(_ db: Database, zone: ZoneKey, state: ZoneState, now: Int64) throws -> [ChangeEvent] {
        let ownerName = try userName(db, zone.database.ownerID)
        let members = try Int64.fetchAll(
            db, sql: "SELECT user_id FROM share_participants WHERE zone_id = ? AND removed = 0 ORDER BY user_id", arguments: [state.rowID])
        let events = try members.map { try removeParticipant(db, zone: zone, ownerName: ownerName, state: state, userID: $0, now: now, to: .ended) }
        // The others were never or are no longer in a shared database: rows never in one go now.
        try db.execute(sql: "DELETE FROM share_participants WHERE zone_id = ? AND removed = 1 AND db_seq = 0", arguments: [state.rowID])
        try db.execute(
            sql: "UPDATE share_participants SET state = 'ended', removed_at = COALESCE(removed_at, ?) WHERE zone_id = ? AND state <> 'ended'",
            arguments: [now, state.rowID])
        try db.execute(sql: "DELETE FROM share_invitations WHERE zone_id = ?", arguments: [state.rowID])
        try db.execute(sql: "DELETE FROM shares WHERE zone_id = ?", arguments: [state.rowID])
        try db.execute(sql: "UPDATE zones SET shared = 0 WHERE id = ?", arguments: [state.rowID])
        return events
    }

    /// Takes an accepted membership out of the participant's shared database at its next
    /// position, in state `to` (removed, left or ended); the tombstone is purged once older
    /// than the tombstone horizon.
    static func removeParticipant(
        _ db: Database, zone: ZoneKey, ownerName: String, state: ZoneState, userID: Int64, now: Int64, to newState: MembershipState
    ) throws -> ChangeEvent {
        let seq = try bumpDatabase(db, DatabaseKey(container: zone.database.container, scope: .shared, ownerID: userID))
        try db.execute(
            sql: "UPDATE share_participants SET removed = 1, state = ?, removed_at = ?, db_seq = ? WHERE zone_id = ? AND user_id = ?",
            arguments: [newState.rawValue, now, seq, state.rowID, userID])
        return ChangeEvent(sharedZone: zone, ownerName: ownerName, state: state, participantID: userID, databaseSeq: seq, removed: true)
    }

    static func loadShare(_ db: Database, zone: ZoneKey, state: ZoneState) throws -> StoredShare? {
        guard let share = try Row.fetchOne(
            db, sql: "SELECT public_permission, share_id, secret FROM shares WHERE zone_id = ?", arguments: [state.rowID])
        else { return nil }
        var members = try Row.fetchAll(
            db,
            sql: """
                SELECT p.user_id, u.name, p.permission, p.state, p.is_public FROM share_participants p JOIN users u ON u.id = p.user_id
                WHERE p.zone_id = ? AND p.state <> 'ended'
                """,
            arguments: [state.rowID]
        ).map { row in
            let membership = try membership(row)
            return ShareMember(
                userID: try row.stored("user_id", in: "share_participants"), userName: try row.stored("name", in: "users"),
                permission: membership.permission, state: membership.state, isPublic: membership.isPublic)
        }
        members += try Row.fetchAll(
            db, sql: "SELECT user_name, permission FROM share_invitations WHERE zone_id = ?", arguments: [state.rowID]
        ).map { row in
            ShareMember(
                userID: nil, userName: try row.stored("user_name", in: "share_invitations"),
                permission: try SharePermission.stored(try row.stored("permission", in: "share_invitations"), in: "share_invitations"))
        }
        return StoredShare(
            zone: zone, ownerName: try userName(db, zone.database.ownerID),
            shareID: try share.stored("share_id", in: "shares"), secret: try share.stored("secret", in: "shares"),
            publicPermission: try SharePermission.stored(try share.stored("public_permission", in: "shares"), in: "shares", column: "public_permission"),
            participants: members)
    }

    /// A membership row's state, permission and public mark.
    static func membership(_ row: Row) throws -> ShareAdmission.Membership {
        ShareAdmission.Membership(
            state: try MembershipState.stored(try row.stored("state", in: "share_participants")),
            permission: try SharePermission.stored(try row.stored("permission", in: "share_participants"), in: "share_participants"),
            isPublic: try row.stored("is_public", in: "share_participants"))
    }

    static func userName(_ db: Database, _ userID: Int64) throws -> String {
        try String.fetchOne(db, sql: "SELECT name FROM users WHERE id = ?", arguments: [userID]) ?? ""
    }

    // MARK: The shared database

    /// The zones shared with the user a shared database key names, ordered by zone and owner name.
    static func sharedZones(_ db: Database, _ database: DatabaseKey, after cursor: ZoneListCursor?, limit: Int) throws -> [ZoneState] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT z.*, u.name AS owner_name FROM share_participants p
                JOIN zones z ON z.id = p.zone_id JOIN users u ON u.id = z.owner_id
                WHERE p.user_id = ? AND p.container = ? AND p.removed = 0 AND z.deleted = 0 AND (z.name, u.name) > (?, ?)
                ORDER BY z.name, u.name LIMIT ?
                """,
            arguments: [database.ownerID, database.container, cursor?.zoneName ?? "", cursor?.ownerName ?? "", limit]
        ).map { try zoneState($0) }
    }

    /// Entries of a shared database changed after `afterSeq`, oldest first.
    static func sharedZoneChanges(_ db: Database, _ database: DatabaseKey, afterSeq: Int64, limit: Int) throws -> [ZoneChange] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT z.name, u.name AS owner_name, (p.removed OR z.deleted) AS gone, p.db_seq FROM share_participants p
                JOIN zones z ON z.id = p.zone_id JOIN users u ON u.id = z.owner_id
                WHERE p.user_id = ? AND p.container = ? AND p.db_seq > ?
                ORDER BY p.db_seq LIMIT ?
                """,
            arguments: [database.ownerID, database.container, afterSeq, limit]
        ).map {
            ZoneChange(
                zoneName: try $0.stored("name", in: "zones"), deleted: try $0.stored("gone", in: "share_participants") as Bool,
                databaseSeq: try $0.stored("db_seq", in: "share_participants"), ownerName: try $0.stored("owner_name", in: "users"))
        }
    }
}
