import GRDB

extension SQLiteSchema {
    /// Migration `v4-zone-incarnations`: change tokens and change tags name a zone by a random
    /// incarnation, not its row id (decision server-0018). Zones that exist when it runs keep
    /// their row id as incarnation, so the tokens and tags devices hold keep working.
    static func registerZoneIncarnations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v4-zone-incarnations") { db in
            try db.execute(sql: """
                ALTER TABLE zones ADD COLUMN incarnation INTEGER NOT NULL DEFAULT 0;
                UPDATE zones SET incarnation = id;
                """)
        }
    }
}
