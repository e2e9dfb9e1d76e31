import GRDB

extension SQLiteSchema {
    /// Migration `v4-share-invitations` (server-0025): share ids and URL secrets,
    /// participant states, public participants and pending invitations by name.
    ///
    /// `share_participants.state` is `invited`, `accepted`, `removed`, `left` or `ended` (the
    /// row of a deleted share); `removed` now means "not in the participant's shared
    /// database" and is kept equal to `state <> 'accepted'`, so every access check stays the
    /// same query. `db_seq = 0` marks a row that never was (or no longer is) in that database.
    /// `share_invitations` holds names the owner invited before a user of that name existed.
    /// Shares and participants of before the migration keep their access: `accepted`, and each
    /// share gets an id and a secret.
    static func registerShareInvitations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v4-share-invitations") { db in
            try db.execute(sql: """
                ALTER TABLE shares ADD COLUMN share_id TEXT;
                ALTER TABLE shares ADD COLUMN secret TEXT;
                ALTER TABLE share_participants ADD COLUMN state TEXT NOT NULL DEFAULT 'accepted';
                ALTER TABLE share_participants ADD COLUMN is_public INTEGER NOT NULL DEFAULT 0;
                UPDATE share_participants SET state = 'removed' WHERE removed = 1;
                CREATE TABLE share_invitations(
                    zone_id INTEGER NOT NULL,
                    user_name TEXT NOT NULL,
                    permission TEXT NOT NULL,
                    invited_at INTEGER NOT NULL,
                    PRIMARY KEY(zone_id, user_name)) WITHOUT ROWID;
                CREATE INDEX share_invitations_name ON share_invitations(user_name);
                """)
            for zoneID in try Int64.fetchAll(db, sql: "SELECT zone_id FROM shares") {
                try db.execute(
                    sql: "UPDATE shares SET share_id = ?, secret = ? WHERE zone_id = ?",
                    arguments: [ShareSecrets.newShareID(), ShareSecrets.newSecret(), zoneID])
            }
            try db.execute(sql: """
                CREATE UNIQUE INDEX shares_secret ON shares(secret);
                CREATE UNIQUE INDEX shares_share_id ON shares(share_id);
                """)
        }
    }
}
