import PostgresNIO

extension PostgresStorage {
    package func purgeShareTombstones(olderThan cutoff: Int64) async throws -> Int {
        let rows = try await query(
            """
            WITH purged AS (
                DELETE FROM share_participants WHERE removed AND removed_at < \(cutoff) RETURNING container, user_id, db_seq),
            horizons AS (
                UPDATE databases d SET purged_seq = GREATEST(d.purged_seq, h.max_seq)
                FROM (SELECT container, user_id, MAX(db_seq) AS max_seq FROM purged GROUP BY container, user_id) h
                WHERE d.container = h.container AND d.scope = 'shared' AND d.owner_id = h.user_id
                RETURNING 1)
            SELECT (SELECT COUNT(*) FROM purged)::int8, (SELECT COUNT(*) FROM horizons)::int8
            """, logger: logger)
        for try await (purged, _) in rows.decode((Int64, Int64).self) { return Int(purged) }
        return 0
    }
}
