import GRDB

extension SQLiteStorage {
    /// Purges the shared-database tombstones older than `cutoff` (server-0009, amended by
    /// server-0025): rows of ended shares and of public participants who left or were removed
    /// are deleted; the rows of named participants stay for their owner to see, out of the
    /// participant's shared database (`db_seq = 0`).
    package func purgeShareTombstones(olderThan cutoff: Int64) async throws -> Int {
        try await pool.write { db in
            let horizons = try Row.fetchAll(
                db,
                sql: """
                    SELECT container, user_id, MAX(db_seq) AS max_seq FROM share_participants
                    WHERE removed = 1 AND removed_at < ? AND db_seq > 0 GROUP BY container, user_id
                    """,
                arguments: [cutoff])
            for row in horizons {
                try db.execute(
                    sql: "UPDATE databases SET purged_seq = MAX(purged_seq, ?) WHERE container = ? AND scope = 'shared' AND owner_id = ?",
                    arguments: [
                        try row.stored("max_seq", in: "share_participants") as Int64, try row.stored("container", in: "share_participants") as String,
                        try row.stored("user_id", in: "share_participants") as Int64,
                    ])
            }
            try db.execute(
                sql: "DELETE FROM share_participants WHERE removed = 1 AND removed_at < ? AND (state = 'ended' OR is_public = 1)",
                arguments: [cutoff])
            let deleted = db.changesCount
            try db.execute(
                sql: "UPDATE share_participants SET db_seq = 0 WHERE removed = 1 AND removed_at < ? AND db_seq > 0",
                arguments: [cutoff])
            return deleted + db.changesCount
        }
    }
}
