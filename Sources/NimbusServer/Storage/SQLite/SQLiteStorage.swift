import Foundation
import GRDB
import NimbusWire

/// The embedded backend: one SQLite file in WAL mode through a GRDB `DatabasePool`.
///
/// Writes are serialized by the pool's single writer, so a modify batch is one
/// `IMMEDIATE` transaction and compare-and-swap needs no further lock.
///
/// For example:
/// ```swift
/// let storage = try SQLiteStorage(path: dataDirectory + "/nimbus.sqlite")
/// try await storage.migrate()
/// ```
package final class SQLiteStorage: SyncStorage {
    package let backendName = "sqlite"
    package let changeFeed: ChangeFeed
    let pool: DatabasePool

    /// Opens (creating if needed) the database file, after ``SQLiteDatabaseCheck/preflight(path:)``
    /// found it absent or a sound Nimbus database this version knows.
    /// - Parameters:
    ///   - path: The SQLite file's path.
    ///   - changeFeed: Where committed changes are delivered.
    /// - Throws: ``SQLiteDatabaseCheck/RefusedError`` for a damaged, empty, foreign or newer file.
    package init(path: String, changeFeed: ChangeFeed = ChangeFeed()) throws {
        try SQLiteDatabaseCheck.preflight(path: path)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        self.pool = try DatabasePool(path: path, configuration: configuration)
        self.changeFeed = changeFeed
    }

    package func migrate() async throws {
        try SQLiteSchema.migrator.migrate(pool)
    }

    package func ping() async throws {
        _ = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
    }

    // MARK: Accounts

    package func createUser(name: String, quotaBytes: Int64?, now: Int64) async throws -> UserAccount {
        try await pool.write { db in
            if try Row.fetchOne(db, sql: "SELECT 1 FROM users WHERE name = ?", arguments: [name]) != nil {
                throw WireError(.invalidArguments, "A user named '\(name)' already exists.")
            }
            try db.execute(
                sql: "INSERT INTO users(name, created_at, used_bytes, quota_bytes) VALUES (?, ?, 0, ?)",
                arguments: [name, now, quotaBytes])
            return UserAccount(id: db.lastInsertedRowID, name: name, usedBytes: 0, quotaBytes: quotaBytes)
        }
    }

    package func user(named name: String) async throws -> UserAccount? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM users WHERE name = ?", arguments: [name]).map { try Self.user($0) }
        }
    }

    package func createToken(userID: Int64, device: String, tokenHash: String, expiresAt: Int64?, now: Int64) async throws -> Int64 {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO tokens(user_id, device, hash, created_at, expires_at, revoked) VALUES (?, ?, ?, ?, ?, 0)",
                arguments: [userID, device, tokenHash, now, expiresAt])
            return db.lastInsertedRowID
        }
    }

    package func token(hash: String) async throws -> DeviceToken? {
        try await pool.read { db in
            let sql = """
                SELECT t.id AS token_id, t.device, t.expires_at, t.revoked, u.*
                FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ?
                """
            guard let row = try Row.fetchOne(db, sql: sql, arguments: [hash]) else { return nil }
            return DeviceToken(
                id: try row.stored("token_id", in: "tokens"), user: try Self.user(row), device: try row.stored("device", in: "tokens"),
                expiresAt: try row.storedIfPresent("expires_at", in: "tokens"), revoked: try row.stored("revoked", in: "tokens") as Bool)
        }
    }

    package func revokeTokens(userID: Int64, device: String?) async throws -> Int {
        try await pool.write { db in
            if let device {
                try db.execute(sql: "UPDATE tokens SET revoked = 1 WHERE user_id = ? AND device = ?", arguments: [userID, device])
            } else {
                try db.execute(sql: "UPDATE tokens SET revoked = 1 WHERE user_id = ?", arguments: [userID])
            }
            return db.changesCount
        }
    }

    // MARK: Statistics

    package func statistics() async throws -> (records: Int64, bytes: Int64) {
        try await pool.read { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT COUNT(*) AS n, COALESCE(SUM(size), 0) AS bytes FROM records WHERE deleted_time IS NULL")
            return (try row?.storedIfPresent("n", in: "records") ?? 0, try row?.storedIfPresent("bytes", in: "records") ?? 0)
        }
    }

    static func user(_ row: Row) throws -> UserAccount {
        UserAccount(
            id: try row.stored("id", in: "users"), name: try row.stored("name", in: "users"),
            usedBytes: try row.stored("used_bytes", in: "users"), quotaBytes: try row.storedIfPresent("quota_bytes", in: "users"))
    }
}
