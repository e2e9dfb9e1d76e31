import PostgresNIO

extension PostgresStorage {
    /// Purges the shared-database tombstones older than `cutoff`, as
    /// `SQLiteStorage.purgeShareTombstones(olderThan:)` does.
    package func purgeShareTombstones(olderThan cutoff: Int64) async throws -> Int {
        try await transaction { [logger] connection in
            try await connection.run(
                """
                UPDATE databases d SET purged_seq = GREATEST(d.purged_seq, h.max_seq)
                FROM (SELECT container, user_id, MAX(db_seq) AS max_seq FROM share_participants
                      WHERE removed AND removed_at < \(cutoff) AND db_seq > 0 GROUP BY container, user_id) h
                WHERE d.container = h.container AND d.scope = 'shared' AND d.owner_id = h.user_id
                """, logger: logger)
            var purged: Int64 = 0
            for try await count in try await connection.run(
                """
                WITH gone AS (
                    DELETE FROM share_participants WHERE removed AND removed_at < \(cutoff) AND (state = 'ended' OR is_public)
                    RETURNING 1),
                kept AS (
                    UPDATE share_participants SET db_seq = 0
                    WHERE removed AND removed_at < \(cutoff) AND db_seq > 0 AND NOT (state = 'ended' OR is_public)
                    RETURNING 1)
                SELECT (SELECT COUNT(*) FROM gone)::int8 + (SELECT COUNT(*) FROM kept)::int8
                """, logger: logger
            ).decode(Int64.self) {
                purged = count
            }
            return Int(purged)
        }
    }
}
