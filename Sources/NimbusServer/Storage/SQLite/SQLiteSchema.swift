import GRDB

/// The SQLite schema, as GRDB migrations run at start-up.
enum SQLiteSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE users(
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL UNIQUE,
                    created_at INTEGER NOT NULL,
                    used_bytes INTEGER NOT NULL DEFAULT 0,
                    quota_bytes INTEGER);
                CREATE TABLE tokens(
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    user_id INTEGER NOT NULL REFERENCES users(id),
                    device TEXT NOT NULL,
                    hash TEXT NOT NULL UNIQUE,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER,
                    revoked INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE databases(
                    container TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    owner_id INTEGER NOT NULL,
                    seq INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY(container, scope, owner_id));
                CREATE TABLE zones(
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    container TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    owner_id INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    seq INTEGER NOT NULL DEFAULT 0,
                    purged_seq INTEGER NOT NULL DEFAULT 0,
                    db_seq INTEGER NOT NULL,
                    deleted INTEGER NOT NULL DEFAULT 0,
                    created_at INTEGER NOT NULL,
                    deleted_at INTEGER);
                CREATE UNIQUE INDEX zones_live ON zones(container, scope, owner_id, name) WHERE deleted = 0;
                CREATE INDEX zones_db_seq ON zones(container, scope, owner_id, db_seq);
                CREATE TABLE records(
                    zone_id INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    type TEXT NOT NULL,
                    fields BLOB NOT NULL,
                    change_tag TEXT NOT NULL,
                    seq INTEGER NOT NULL,
                    created_at INTEGER NOT NULL,
                    created_device TEXT NOT NULL,
                    modified_at INTEGER NOT NULL,
                    modified_device TEXT NOT NULL,
                    deleted_time INTEGER,
                    deleted_device TEXT,
                    size INTEGER NOT NULL,
                    PRIMARY KEY(zone_id, name)) WITHOUT ROWID;
                CREATE INDEX records_seq ON records(zone_id, seq);
                CREATE INDEX records_tombstones ON records(modified_at) WHERE deleted_time IS NOT NULL;
                CREATE TABLE asset_refs(
                    zone_id INTEGER NOT NULL,
                    record_name TEXT NOT NULL,
                    checksum TEXT NOT NULL,
                    PRIMARY KEY(zone_id, record_name, checksum)) WITHOUT ROWID;
                CREATE INDEX asset_refs_checksum ON asset_refs(checksum);
                CREATE TABLE assets(
                    container TEXT NOT NULL,
                    checksum TEXT NOT NULL,
                    user_id INTEGER NOT NULL,
                    size INTEGER NOT NULL,
                    uploaded_at INTEGER NOT NULL,
                    PRIMARY KEY(container, checksum, user_id));
                """)
        }
        registerSharing(in: &migrator)
        registerShareHorizon(in: &migrator)
        registerShareInvitations(in: &migrator)
        registerConsole(in: &migrator)
        registerZoneIncarnations(in: &migrator)
        return migrator
    }
}
