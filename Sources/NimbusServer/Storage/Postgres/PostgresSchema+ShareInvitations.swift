extension PostgresSchema {
    /// Migration 5: share ids and URL secrets, participant states, public participants and
    /// pending invitations by name (see `SQLiteSchema.registerShareInvitations`). Shares of
    /// before the migration get an id and a secret from `gen_random_uuid()` (PostgreSQL's
    /// cryptographic generator; two UUIDs give the secret 244 random bits).
    static let shareInvitationStatements: [String] = [
        "ALTER TABLE shares ADD COLUMN share_id TEXT",
        "ALTER TABLE shares ADD COLUMN secret TEXT",
        "ALTER TABLE share_participants ADD COLUMN state TEXT NOT NULL DEFAULT 'accepted'",
        "ALTER TABLE share_participants ADD COLUMN is_public BOOLEAN NOT NULL DEFAULT false",
        "UPDATE share_participants SET state = 'removed' WHERE removed",
        """
        CREATE TABLE share_invitations(
            zone_id BIGINT NOT NULL, user_name TEXT NOT NULL, permission TEXT NOT NULL, invited_at BIGINT NOT NULL,
            PRIMARY KEY(zone_id, user_name))
        """,
        "CREATE INDEX share_invitations_name ON share_invitations(user_name)",
        """
        UPDATE shares SET share_id = gen_random_uuid()::text,
            secret = rtrim(translate(encode(decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'), 'base64'),
                '+/', '-_'), '=')
        """,
        "CREATE UNIQUE INDEX shares_secret ON shares(secret)",
        "CREATE UNIQUE INDEX shares_share_id ON shares(share_id)",
    ]
}
