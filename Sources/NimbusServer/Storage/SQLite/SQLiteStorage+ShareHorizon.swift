import GRDB

extension SQLiteStorage {
    package func purgeShareTombstones(olderThan cutoff: Int64) async throws -> Int {
        try await pool.write { db in
            let horizons = try Row.fetchAll(
                db,
                sql: """
                    SELECT container, user_id, MAX(db_seq) AS max_seq FROM share_participants
                    WHERE removed = 1 AND removed_at < ? GROUP BY container, user_id
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
            try db.execute(sql: "DELETE FROM share_participants WHERE removed = 1 AND removed_at < ?", arguments: [cutoff])
            return db.changesCount
        }
    }
}
