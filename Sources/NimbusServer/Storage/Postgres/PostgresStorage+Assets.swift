import Foundation
import NimbusWire
import PostgresNIO

extension PostgresStorage {
    package func recordAssetUpload(container: String, checksum: String, size: Int64, userID: Int64, now: Int64, defaultQuotaBytes: Int64) async throws {
        try await transaction { [logger] connection in
            // The user's row is locked first, so concurrent uploads are charged one at a time.
            let users = try await connection.run(
                "SELECT used_bytes, quota_bytes FROM users WHERE id = \(userID) FOR UPDATE", logger: logger)
            var account: (used: Int64, quota: Int64?)?
            for try await (used, quota) in users.decode((Int64, Int64?).self) { account = (used, quota) }
            let known = try await connection.run(
                "SELECT 1 FROM assets WHERE container = \(container) AND checksum = \(checksum) AND user_id = \(userID)", logger: logger)
            var charged = false
            for try await _ in known.decode(Int.self) { charged = true }
            if let account, !charged, account.used + size > (account.quota ?? defaultQuotaBytes) {
                throw StorageErrors.quotaExceeded(used: account.used, adding: size, quota: account.quota ?? defaultQuotaBytes)
            }
            let rows = try await connection.run(
                """
                INSERT INTO assets(container, checksum, user_id, size, uploaded_at) VALUES (\(container), \(checksum), \(userID), \(size), \(now))
                ON CONFLICT (container, checksum, user_id) DO UPDATE SET uploaded_at = EXCLUDED.uploaded_at
                RETURNING (xmax = 0) AS inserted
                """, logger: logger)
            var inserted = false
            for try await value in rows.decode(Bool.self) { inserted = value }
            if inserted {
                try await connection.run("UPDATE users SET used_bytes = used_bytes + \(size) WHERE id = \(userID)", logger: logger)
            }
        }
    }

    package func mayReadAsset(container: String, checksum: String, userID: Int64) async throws -> Bool {
        let rows = try await query(
            """
            SELECT EXISTS (SELECT 1 FROM assets WHERE container = \(container) AND checksum = \(checksum) AND user_id = \(userID))
                OR EXISTS (SELECT 1 FROM asset_refs r JOIN zones z ON z.id = r.zone_id
                           WHERE r.checksum = \(checksum) AND z.container = \(container) AND NOT z.deleted
                             AND (z.scope = 'public' OR (z.scope = 'private' AND z.owner_id = \(userID))
                                  OR EXISTS (SELECT 1 FROM share_participants p
                                             WHERE p.zone_id = z.id AND p.user_id = \(userID) AND NOT p.removed)))
            """, logger: logger)
        for try await allowed in rows.decode(Bool.self) { return allowed }
        return false
    }

    package func collectUnreferencedAssets(uploadedBefore cutoff: Int64) async throws -> [String] {
        try await transaction { [logger] connection in
            let rows = try await connection.run(
                """
                DELETE FROM assets a WHERE a.uploaded_at < \(cutoff) AND NOT EXISTS (
                    SELECT 1 FROM asset_refs r JOIN zones z ON z.id = r.zone_id
                    WHERE r.checksum = a.checksum AND z.container = a.container AND NOT z.deleted)
                RETURNING a.checksum, a.user_id, a.size
                """, logger: logger)
            var touched = Set<String>()
            var released: [(Int64, Int64)] = []
            for try await (checksum, user, size) in rows.decode((String, Int64, Int64).self) {
                touched.insert(checksum)
                released.append((user, size))
            }
            for (user, size) in released {
                try await connection.run(
                    "UPDATE users SET used_bytes = GREATEST(0, used_bytes - \(size)) WHERE id = \(user)", logger: logger)
            }
            var orphans: [String] = []
            for checksum in touched.sorted() {
                let left = try await connection.run("SELECT 1 FROM assets WHERE checksum = \(checksum) LIMIT 1", logger: logger).collect()
                if left.isEmpty { orphans.append(checksum) }
            }
            return orphans
        }
    }
}
