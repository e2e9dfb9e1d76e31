import GRDB

extension SQLiteSchema {
    /// Migration `v2-sharing`: shares of private zones and their participants.
    ///
    /// `zones.shared` marks zones with a share, so a modify of an unshared zone does not look
    /// for participants. A `share_participants` row is also the zone's entry in the
    /// participant's shared database: `db_seq` is its position there, and `removed = 1`
    /// keeps it as a tombstone once the participant lost access.
    static func registerSharing(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v2-sharing") { db in
            try db.execute(sql: """
                ALTER TABLE zones ADD COLUMN shared INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE shares(
                    zone_id INTEGER PRIMARY KEY,
                    public_permission TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    modified_at INTEGER NOT NULL);
                CREATE TABLE share_participants(
                    zone_id INTEGER NOT NULL,
                    user_id INTEGER NOT NULL,
                    container TEXT NOT NULL,
                    permission TEXT NOT NULL,
                    removed INTEGER NOT NULL DEFAULT 0,
                    db_seq INTEGER NOT NULL,
                    added_at INTEGER NOT NULL,
                    PRIMARY KEY(zone_id, user_id)) WITHOUT ROWID;
                CREATE INDEX share_participants_db ON share_participants(user_id, container, db_seq);
                """)
        }
    }
}
