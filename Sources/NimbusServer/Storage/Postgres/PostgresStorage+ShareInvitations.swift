import NimbusWire
import PostgresNIO

extension PostgresStorage {
    package func shareMetadata(secret: String, userID: Int64, userName: String) async throws -> ShareMetadata? {
        guard ShareSecrets.isWellFormed(secret) else { return nil }
        return try await transaction { [logger] connection in
            guard let (found, _, admission) = try await Self.admission(
                connection, secret: secret, userID: userID, userName: userName, lock: false, logger: logger)
            else { return nil }
            return found.metadata(permission: admission.permission, state: admission.state)
        }
    }

    package func acceptShare(secret: String, userID: Int64, userName: String, now: Int64) async throws -> ShareMetadata? {
        guard ShareSecrets.isWellFormed(secret) else { return nil }
        return try await transaction { [logger] connection in
            guard let (found, state, admission) = try await Self.admission(
                connection, secret: secret, userID: userID, userName: userName, lock: true, logger: logger)
            else { return nil }
            let metadata = found.metadata(permission: admission.permission, state: .accepted)
            if case .member(_, .accepted, _) = admission { return metadata }
            let seq = try await Self.bumpDatabase(
                connection, DatabaseKey(container: found.zone.database.container, scope: .shared, ownerID: userID), logger: logger)
            try await connection.run(
                """
                INSERT INTO share_participants(zone_id, user_id, container, permission, removed, state, is_public, db_seq, added_at)
                VALUES (\(state.rowID), \(userID), \(found.zone.database.container), \(admission.permission.rawValue), false, 'accepted',
                    \(admission.isPublic), \(seq), \(now))
                ON CONFLICT (zone_id, user_id) DO UPDATE SET permission = EXCLUDED.permission, removed = false, state = 'accepted',
                    is_public = EXCLUDED.is_public, removed_at = NULL, db_seq = EXCLUDED.db_seq
                """, logger: logger)
            if case .invitedByName = admission {
                try await connection.run(
                    "DELETE FROM share_invitations WHERE zone_id = \(state.rowID) AND user_name = \(userName)", logger: logger)
            }
            try await Self.notify(
                connection,
                [ChangeEvent(sharedZone: found.zone, ownerName: found.ownerName, state: state, participantID: userID, databaseSeq: seq, removed: false)],
                logger: logger)
            return metadata
        }
    }

    package func shares(container: String, userID: Int64, userName: String) async throws -> ShareListing {
        try await transaction { [logger] connection in
            var owned: [(ZoneState, Int64)] = []
            for try await row in try await connection.run(
                """
                SELECT z.id, z.incarnation, z.name, z.seq, z.purged_seq, z.db_seq, z.deleted, z.shared, z.owner_id FROM zones z JOIN shares s ON s.zone_id = z.id
                WHERE z.container = \(container) AND z.scope = 'private' AND z.owner_id = \(userID) AND NOT z.deleted ORDER BY z.name
                """, logger: logger) {
                let cells = row.makeRandomAccess()
                owned.append((try Self.zoneState(cells), try cells["owner_id"].decode(Int64.self)))
            }
            var participating: [(ZoneState, Int64)] = []
            for try await row in try await connection.run(
                """
                SELECT z.id, z.incarnation, z.name, z.seq, z.purged_seq, z.db_seq, z.deleted, z.shared, z.owner_id, u.name AS owner_name
                FROM zones z JOIN shares s ON s.zone_id = z.id JOIN users u ON u.id = z.owner_id
                WHERE z.container = \(container) AND z.scope = 'private' AND NOT z.deleted AND (
                    EXISTS (SELECT 1 FROM share_participants p WHERE p.zone_id = z.id AND p.user_id = \(userID) AND p.state IN ('invited', 'accepted'))
                    OR (EXISTS (SELECT 1 FROM share_invitations i WHERE i.zone_id = z.id AND i.user_name = \(userName))
                        AND NOT EXISTS (SELECT 1 FROM share_participants p WHERE p.zone_id = z.id AND p.user_id = \(userID) AND p.state <> 'ended')))
                ORDER BY z.name, u.name
                """, logger: logger) {
                let cells = row.makeRandomAccess()
                participating.append((try Self.zoneState(cells), try cells["owner_id"].decode(Int64.self)))
            }
            var listing = ShareListing(owned: [], participating: [])
            for (state, ownerID) in owned {
                let key = ZoneKey(database: DatabaseKey(container: container, scope: .private, ownerID: ownerID), zoneName: state.zoneName)
                if let share = try await Self.loadShare(connection, zone: key, state: state, logger: logger) { listing.owned.append(share) }
            }
            for (state, ownerID) in participating {
                let key = ZoneKey(database: DatabaseKey(container: container, scope: .private, ownerID: ownerID), zoneName: state.zoneName)
                if let share = try await Self.loadShare(connection, zone: key, state: state, logger: logger) { listing.participating.append(share) }
            }
            return listing
        }
    }

    /// The share a secret names, its zone (locked with `lock`, as a modify locks it), and what
    /// it offers the user; `nil` when nothing.
    private static func admission(
        _ connection: PostgresConnection, secret: String, userID: Int64, userName: String, lock: Bool, logger: Logger
    ) async throws -> (SharedByURL, ZoneState, ShareAdmission)? {
        var located: (container: String, ownerID: Int64, zoneName: String)?
        for try await (container, ownerID, zoneName) in try await connection.run(
            """
            SELECT z.container, z.owner_id, z.name FROM shares s JOIN zones z ON z.id = s.zone_id AND NOT z.deleted
            WHERE s.secret = \(secret)
            """, logger: logger
        ).decode((String, Int64, String).self) {
            located = (container, ownerID, zoneName)
        }
        guard let located else { return nil }
        let key = ZoneKey(database: DatabaseKey(container: located.container, scope: .private, ownerID: located.ownerID), zoneName: located.zoneName)
        guard let state = try await liveZone(connection, key, logger: logger, lock: lock) else { return nil }
        // Read again under the lock: the share may have ended meanwhile.
        var header: (String, SharePermission)?
        for try await (shareID, text) in try await connection.run(
            "SELECT share_id, public_permission FROM shares WHERE zone_id = \(state.rowID) AND secret = \(secret)", logger: logger
        ).decode((String, String).self) {
            header = (shareID, try SharePermission.stored(text, in: "shares", column: "public_permission"))
        }
        guard let (shareID, publicPermission) = header else { return nil }
        let found = SharedByURL(
            zone: key, ownerName: try await Self.userName(connection, located.ownerID, logger: logger), shareID: shareID,
            publicPermission: publicPermission)
        var membership: ShareAdmission.Membership?
        for try await (permission, stateText, isPublic) in try await connection.run(
            "SELECT permission, state, is_public FROM share_participants WHERE zone_id = \(state.rowID) AND user_id = \(userID)", logger: logger
        ).decode((String, String, Bool).self) {
            membership = ShareAdmission.Membership(
                state: try MembershipState.stored(stateText), permission: try SharePermission.stored(permission, in: "share_participants"),
                isPublic: isPublic)
        }
        var invitation: SharePermission?
        for try await permission in try await connection.run(
            "SELECT permission FROM share_invitations WHERE zone_id = \(state.rowID) AND user_name = \(userName)", logger: logger
        ).decode(String.self) {
            invitation = try SharePermission.stored(permission, in: "share_invitations")
        }
        guard let admission = ShareAdmission.decide(
            isOwner: located.ownerID == userID, membership: membership, invitation: invitation, publicPermission: publicPermission)
        else { return nil }
        return (found, state, admission)
    }
}
