import GRDB
import NimbusWire

extension SQLiteStorage {
    package func shareMetadata(secret: String, userID: Int64, userName: String) async throws -> ShareMetadata? {
        guard ShareSecrets.isWellFormed(secret) else { return nil }
        return try await pool.read { db in
            guard let (found, _, admission) = try Self.admission(db, secret: secret, userID: userID, userName: userName) else { return nil }
            return found.metadata(permission: admission.permission, state: admission.state)
        }
    }

    package func acceptShare(secret: String, userID: Int64, userName: String, now: Int64) async throws -> ShareMetadata? {
        guard ShareSecrets.isWellFormed(secret) else { return nil }
        let (metadata, event) = try await pool.write { db -> (ShareMetadata?, ChangeEvent?) in
            guard let (found, state, admission) = try Self.admission(db, secret: secret, userID: userID, userName: userName) else {
                return (nil, nil)
            }
            let metadata = found.metadata(permission: admission.permission, state: .accepted)
            if case .member(_, .accepted, _) = admission { return (metadata, nil) }
            let seq = try Self.bumpDatabase(db, DatabaseKey(container: found.zone.database.container, scope: .shared, ownerID: userID))
            try db.execute(
                sql: """
                    INSERT INTO share_participants(zone_id, user_id, container, permission, removed, state, is_public, db_seq, added_at)
                    VALUES (?, ?, ?, ?, 0, 'accepted', ?, ?, ?)
                    ON CONFLICT(zone_id, user_id) DO UPDATE SET permission = excluded.permission, removed = 0, state = 'accepted',
                        is_public = excluded.is_public, removed_at = NULL, db_seq = excluded.db_seq
                    """,
                arguments: [state.rowID, userID, found.zone.database.container, admission.permission.rawValue, admission.isPublic, seq, now])
            if case .invitedByName = admission {
                try db.execute(sql: "DELETE FROM share_invitations WHERE zone_id = ? AND user_name = ?", arguments: [state.rowID, userName])
            }
            let event = ChangeEvent(
                sharedZone: found.zone, ownerName: found.ownerName, state: state, participantID: userID, databaseSeq: seq, removed: false)
            return (metadata, event)
        }
        if let event { changeFeed.deliver(event) }
        return metadata
    }

    package func shares(container: String, userID: Int64, userName: String) async throws -> ShareListing {
        try await pool.read { db in
            let owned = try Row.fetchAll(
                db,
                sql: """
                    SELECT z.* FROM zones z JOIN shares s ON s.zone_id = z.id
                    WHERE z.container = ? AND z.scope = 'private' AND z.owner_id = ? AND z.deleted = 0 ORDER BY z.name
                    """,
                arguments: [container, userID]
            ).map { try Self.zoneState($0) }
            let participating = try Row.fetchAll(
                db,
                sql: """
                    SELECT z.*, u.name AS owner_name FROM zones z JOIN shares s ON s.zone_id = z.id JOIN users u ON u.id = z.owner_id
                    WHERE z.container = ? AND z.scope = 'private' AND z.deleted = 0 AND (
                        EXISTS (SELECT 1 FROM share_participants p WHERE p.zone_id = z.id AND p.user_id = ? AND p.state IN ('invited', 'accepted'))
                        OR (EXISTS (SELECT 1 FROM share_invitations i WHERE i.zone_id = z.id AND i.user_name = ?)
                            AND NOT EXISTS (SELECT 1 FROM share_participants p WHERE p.zone_id = z.id AND p.user_id = ? AND p.state <> 'ended')))
                    ORDER BY z.name, u.name
                    """,
                arguments: [container, userID, userName, userID]
            ).map { row in (try Self.zoneState(row), try row.stored("owner_id", in: "zones") as Int64) }
            return ShareListing(
                owned: try owned.compactMap { state in
                    try Self.loadShare(db, zone: ZoneKey(database: DatabaseKey(container: container, scope: .private, ownerID: userID), zoneName: state.zoneName), state: state)
                },
                participating: try participating.compactMap { state, ownerID in
                    try Self.loadShare(db, zone: ZoneKey(database: DatabaseKey(container: container, scope: .private, ownerID: ownerID), zoneName: state.zoneName), state: state)
                })
        }
    }

    /// The share a secret names, its zone, and what it offers the user; `nil` when nothing.
    private static func admission(
        _ db: Database, secret: String, userID: Int64, userName: String
    ) throws -> (SharedByURL, ZoneState, ShareAdmission)? {
        guard let row = try Row.fetchOne(
            db,
            sql: """
                SELECT z.*, s.share_id, s.public_permission, u.name AS owner_name FROM shares s
                JOIN zones z ON z.id = s.zone_id AND z.deleted = 0 JOIN users u ON u.id = z.owner_id
                WHERE s.secret = ?
                """,
            arguments: [secret])
        else { return nil }
        let state = try zoneState(row)
        let ownerID: Int64 = try row.stored("owner_id", in: "zones")
        let found = SharedByURL(
            zone: ZoneKey(database: DatabaseKey(container: try row.stored("container", in: "zones"), scope: .private, ownerID: ownerID), zoneName: state.zoneName),
            ownerName: try row.stored("owner_name", in: "users"), shareID: try row.stored("share_id", in: "shares"),
            publicPermission: try SharePermission.stored(try row.stored("public_permission", in: "shares"), in: "shares", column: "public_permission"))
        let membership = try Row.fetchOne(
            db, sql: "SELECT permission, state, is_public FROM share_participants WHERE zone_id = ? AND user_id = ?",
            arguments: [state.rowID, userID]
        ).map { try Self.membership($0) }
        let invitation = try Row.fetchOne(
            db, sql: "SELECT permission FROM share_invitations WHERE zone_id = ? AND user_name = ?", arguments: [state.rowID, userName]
        ).map { try SharePermission.stored(try $0.stored("permission", in: "share_invitations"), in: "share_invitations") }
        guard let admission = ShareAdmission.decide(
            isOwner: ownerID == userID, membership: membership, invitation: invitation, publicPermission: found.publicPermission)
        else { return nil }
        return (found, state, admission)
    }
}
