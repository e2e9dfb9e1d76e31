extension PostgresSchema {
    /// Migration 4: membership tombstones expire like record tombstones (see
    /// `SQLiteSchema.registerShareHorizon`). Memberships removed before this migration count as
    /// removed when it runs.
    static let shareHorizonStatements: [String] = [
        "ALTER TABLE share_participants ADD COLUMN removed_at BIGINT",
        "UPDATE share_participants SET removed_at = (extract(epoch FROM now()) * 1000)::int8 WHERE removed",
        "CREATE INDEX share_participants_removed ON share_participants(removed_at) WHERE removed",
        "ALTER TABLE databases ADD COLUMN purged_seq BIGINT NOT NULL DEFAULT 0",
    ]
}
