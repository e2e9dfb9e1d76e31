extension PostgresSchema {
    /// Migration 2: shares of private zones and their participants (see `SQLiteSchema.registerSharing`).
    static let sharingStatements: [String] = [
        "ALTER TABLE zones ADD COLUMN shared BOOLEAN NOT NULL DEFAULT false",
        """
        CREATE TABLE shares(
            zone_id BIGINT PRIMARY KEY, public_permission TEXT NOT NULL, created_at BIGINT NOT NULL, modified_at BIGINT NOT NULL)
        """,
        """
        CREATE TABLE share_participants(
            zone_id BIGINT NOT NULL, user_id BIGINT NOT NULL, container TEXT NOT NULL, permission TEXT NOT NULL,
            removed BOOLEAN NOT NULL DEFAULT false, db_seq BIGINT NOT NULL, added_at BIGINT NOT NULL,
            PRIMARY KEY(zone_id, user_id))
        """,
        "CREATE INDEX share_participants_db ON share_participants(user_id, container, db_seq)",
    ]
}
