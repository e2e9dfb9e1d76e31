import Foundation
import GRDB
import NimbusWire

extension SQLiteStorage {
    package func recordAssetUpload(container: String, checksum: String, size: Int64, userID: Int64, now: Int64, defaultQuotaBytes: Int64) async throws {
        try await pool.write { db in
            let known = try Row.fetchOne(
                db, sql: "SELECT 1 FROM assets WHERE container = ? AND checksum = ? AND user_id = ?",
                arguments: [container, checksum, userID]) != nil
            if known {
                try db.execute(
                    sql: "UPDATE assets SET uploaded_at = ? WHERE container = ? AND checksum = ? AND user_id = ?",
                    arguments: [now, container, checksum, userID])
                return
            }
            // The single writer serializes uploads, so this check sees every earlier charge.
            if let account = try Row.fetchOne(db, sql: "SELECT used_bytes, quota_bytes FROM users WHERE id = ?", arguments: [userID]) {
                let used: Int64 = try account.stored("used_bytes", in: "users")
                let quota: Int64 = try account.storedIfPresent("quota_bytes", in: "users") ?? defaultQuotaBytes
                if used + size > quota { throw StorageErrors.quotaExceeded(used: used, adding: size, quota: quota) }
            }
            try db.execute(
                sql: "INSERT INTO assets(container, checksum, user_id, size, uploaded_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [container, checksum, userID, size, now])
            try db.execute(sql: "UPDATE users SET used_bytes = used_bytes + ? WHERE id = ?", arguments: [size, userID])
        }
    }

    package func mayReadAsset(container: String, checksum: String, userID: Int64) async throws -> Bool {
        try await pool.read { db in
            if try Row.fetchOne(
                db, sql: "SELECT 1 FROM assets WHERE container = ? AND checksum = ? AND user_id = ?",
                arguments: [container, checksum, userID]) != nil { return true }
            let sql = """
                SELECT 1 FROM asset_refs r JOIN zones z ON z.id = r.zone_id
                WHERE r.checksum = ? AND z.container = ? AND z.deleted = 0
                  AND (z.scope = 'public' OR (z.scope = 'private' AND z.owner_id = ?)
                       OR EXISTS (SELECT 1 FROM share_participants p WHERE p.zone_id = z.id AND p.user_id = ? AND p.removed = 0))
                LIMIT 1
                """
            return try Row.fetchOne(db, sql: sql, arguments: [checksum, container, userID, userID]) != nil
        }
    }

    package func collectUnreferencedAssets(uploadedBefore cutoff: Int64) async throws -> [String] {
        try await pool.write { db in
            let candidates = try Row.fetchAll(
                db,
                sql: """
                    SELECT a.container, a.checksum, a.user_id, a.size FROM assets a
                    WHERE a.uploaded_at < ? AND NOT EXISTS (
                        SELECT 1 FROM asset_refs r JOIN zones z ON z.id = r.zone_id
                        WHERE r.checksum = a.checksum AND z.container = a.container AND z.deleted = 0)
                    """,
                arguments: [cutoff])
            var touched = Set<String>()
            for row in candidates {
                let checksum: String = try row.stored("checksum", in: "assets")
                touched.insert(checksum)
                try db.execute(
                    sql: "DELETE FROM assets WHERE container = ? AND checksum = ? AND user_id = ?",
                    arguments: [try row.stored("container", in: "assets") as String, checksum, try row.stored("user_id", in: "assets") as Int64])
                try db.execute(
                    sql: "UPDATE users SET used_bytes = MAX(0, used_bytes - ?) WHERE id = ?",
                    arguments: [try row.stored("size", in: "assets") as Int64, try row.stored("user_id", in: "assets") as Int64])
            }
            return try touched.filter { checksum in
                try Row.fetchOne(db, sql: "SELECT 1 FROM assets WHERE checksum = ?", arguments: [checksum]) == nil
            }.sorted()
        }
    }
}
