import GRDB

extension SQLiteSchema {
    /// Migration `v3-share-horizon`: membership tombstones expire like record tombstones.
    ///
    /// `share_participants.removed_at` is when a participant lost access (ms since 1970);
    /// memberships removed before this migration count as removed when it runs.
    /// `databases.purged_seq` is the position up to which a database's zone tombstones were
    /// purged: a database change token older than it gets `changeTokenExpired`.
    static func registerShareHorizon(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3-share-horizon") { db in
            try db.execute(sql: """
                ALTER TABLE share_participants ADD COLUMN removed_at INTEGER;
                UPDATE share_participants SET removed_at = CAST(unixepoch('now') AS INTEGER) * 1000 WHERE removed = 1;
                CREATE INDEX share_participants_removed ON share_participants(removed_at) WHERE removed = 1;
                ALTER TABLE databases ADD COLUMN purged_seq INTEGER NOT NULL DEFAULT 0;
                """)
        }
    }
}
