import GRDB

extension SQLiteSchema {
    /// Migration `console-v1`: administrators, disabled users, the console's audit log, and
    /// an index that keeps the record browser's "last modified" order fast on large zones.
    static func registerConsole(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("console-v1") { db in
            try db.execute(sql: """
                ALTER TABLE users ADD COLUMN administrator INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE users ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX records_modified ON records(zone_id, modified_at, name);
                CREATE TABLE console_audit(
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    at INTEGER NOT NULL,
                    administrator TEXT NOT NULL,
                    action TEXT NOT NULL,
                    target TEXT NOT NULL,
                    detail TEXT NOT NULL);
                """)
        }
    }
}
