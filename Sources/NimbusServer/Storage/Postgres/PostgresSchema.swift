import Logging
import PostgresNIO

/// The PostgreSQL schema, as numbered migrations run at start-up under an advisory lock so
/// that servers starting together migrate once.
enum PostgresSchema {
    static let migrations: [(version: Int, statements: [String])] = [
        (1, [
            """
            CREATE TABLE users(
                id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE, created_at BIGINT NOT NULL,
                used_bytes BIGINT NOT NULL DEFAULT 0, quota_bytes BIGINT)
            """,
            """
            CREATE TABLE tokens(
                id BIGSERIAL PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES users(id), device TEXT NOT NULL,
                hash TEXT NOT NULL UNIQUE, created_at BIGINT NOT NULL, expires_at BIGINT, revoked BOOLEAN NOT NULL DEFAULT false)
            """,
            """
            CREATE TABLE databases(
                container TEXT NOT NULL, scope TEXT NOT NULL, owner_id BIGINT NOT NULL, seq BIGINT NOT NULL DEFAULT 0,
                PRIMARY KEY(container, scope, owner_id))
            """,
            """
            CREATE TABLE zones(
                id BIGSERIAL PRIMARY KEY, container TEXT NOT NULL, scope TEXT NOT NULL, owner_id BIGINT NOT NULL,
                name TEXT NOT NULL, seq BIGINT NOT NULL DEFAULT 0, purged_seq BIGINT NOT NULL DEFAULT 0,
                db_seq BIGINT NOT NULL, deleted BOOLEAN NOT NULL DEFAULT false, created_at BIGINT NOT NULL, deleted_at BIGINT)
            """,
            "CREATE UNIQUE INDEX zones_live ON zones(container, scope, owner_id, name) WHERE NOT deleted",
            "CREATE INDEX zones_db_seq ON zones(container, scope, owner_id, db_seq)",
            """
            CREATE TABLE records(
                zone_id BIGINT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, fields TEXT NOT NULL,
                change_tag TEXT NOT NULL, seq BIGINT NOT NULL, created_at BIGINT NOT NULL, created_device TEXT NOT NULL,
                modified_at BIGINT NOT NULL, modified_device TEXT NOT NULL, deleted_time BIGINT, deleted_device TEXT,
                size BIGINT NOT NULL, PRIMARY KEY(zone_id, name))
            """,
            "CREATE INDEX records_seq ON records(zone_id, seq)",
            "CREATE INDEX records_tombstones ON records(modified_at) WHERE deleted_time IS NOT NULL",
            """
            CREATE TABLE asset_refs(
                zone_id BIGINT NOT NULL, record_name TEXT NOT NULL, checksum TEXT NOT NULL,
                PRIMARY KEY(zone_id, record_name, checksum))
            """,
            "CREATE INDEX asset_refs_checksum ON asset_refs(checksum)",
            """
            CREATE TABLE assets(
                container TEXT NOT NULL, checksum TEXT NOT NULL, user_id BIGINT NOT NULL, size BIGINT NOT NULL,
                uploaded_at BIGINT NOT NULL, PRIMARY KEY(container, checksum, user_id))
            """,
        ]),
        (2, sharingStatements),
        (3, lookupStatements),
        (4, shareHorizonStatements),
        (5, shareInvitationStatements),
        (6, zoneIncarnationStatements),
        (7, zonePartitionStatements),
    ]

    static func migrate(_ storage: PostgresStorage, logger: Logger) async throws {
        try await storage.transaction(deadlines: .migration) { connection in
            try await connection.run("SELECT pg_advisory_xact_lock(7243001)", logger: logger)
            try await connection.run(
                "CREATE TABLE IF NOT EXISTS nimbus_schema(version INT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
                logger: logger)
            var applied = Set<Int>()
            for try await version in try await connection.run("SELECT version FROM nimbus_schema", logger: logger).decode(Int.self) {
                applied.insert(version)
            }
            for migration in migrations where !applied.contains(migration.version) {
                for statement in migration.statements {
                    try await connection.run(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.run("INSERT INTO nimbus_schema(version) VALUES (\(migration.version))", logger: logger)
                logger.info("postgres schema migrated", metadata: ["version": "\(migration.version)"])
            }
        }
    }
}
