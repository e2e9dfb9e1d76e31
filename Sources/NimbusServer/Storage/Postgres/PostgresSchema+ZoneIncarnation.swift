extension PostgresSchema {
    /// Migration 5: zones carry a random incarnation for change tokens and tags (see
    /// `SQLiteSchema.registerZoneIncarnations`); existing zones keep their row id.
    static let zoneIncarnationStatements: [String] = [
        "ALTER TABLE zones ADD COLUMN incarnation BIGINT NOT NULL DEFAULT 0",
        "UPDATE zones SET incarnation = id",
    ]
}
