import Foundation
import GRDB

/// Checks a server's SQLite file before anything writes to it: a damaged, empty, foreign or
/// newer database is refused with a message naming the file, and left exactly as it was (no
/// switch to WAL, no migrations table).
///
/// ``preflight(path:)`` runs at every start (``SQLiteStorage/init(path:changeFeed:)``);
/// ``verify(path:)`` is `nimbus serve --check`: it also runs SQLite's full `integrity_check`
/// and looks for values the server cannot read.
///
/// For example:
/// ```swift
/// try SQLiteDatabaseCheck.preflight(path: "/var/lib/nimbus/nimbus.sqlite")   // throws RefusedError for a foreign file
/// ```
package enum SQLiteDatabaseCheck {
    /// Why a database file is not opened.
    package struct RefusedError: Error, CustomStringConvertible, Sendable {
        /// The file.
        package var path: String
        /// What is wrong with it and what to do.
        package var reason: String

        package var description: String { "Refusing to open \(path): \(reason)" }
    }

    /// Checks, read-only, that the file at `path` is absent (a new server), a SQLite database
    /// without any schema, or a Nimbus server database this version knows every migration of
    /// and SQLite's `quick_check` finds sound.
    /// - Throws: ``RefusedError`` naming the file and the problem.
    package static func preflight(path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? -1
        if size == 0 {
            throw RefusedError(
                path: path,
                reason: "the file is empty (0 bytes), so its data is gone. Restore it from a backup, or delete it to start a new, empty server.")
        }
        try requireSQLiteHeader(path)
        try withReadOnlyDatabase(path) { db in
            try requireNimbusSchema(db, path: path)
            let problems = try String.fetchAll(db, sql: "PRAGMA quick_check")
            if problems != ["ok"] {
                throw RefusedError(path: path, reason: "SQLite finds it damaged (\(problems.prefix(3).joined(separator: "; "))). Restore it from a backup.")
            }
        }
    }

    /// `nimbus serve --check`: the preflight, SQLite's full `integrity_check`, and every
    /// column of every table holding only values of its declared type.
    /// - Returns: The problems found; empty when the database is sound.
    /// - Throws: ``RefusedError`` when the file cannot be checked at all.
    package static func verify(path: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: path) else {
            throw RefusedError(path: path, reason: "there is no such file.")
        }
        try preflight(path: path)
        return try withReadOnlyDatabase(path) { db in
            var problems = try String.fetchAll(db, sql: "PRAGMA integrity_check").filter { $0 != "ok" }
            problems += try undecodableValues(db)
            return problems
        }
    }

    /// Columns holding values of another type than the one declared (`INTEGER`, `TEXT`,
    /// `BLOB`), as "table.column: N rows hold text, expected integer".
    static func undecodableValues(_ db: Database) throws -> [String] {
        var problems: [String] = []
        let tables = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%' ORDER BY name")
        for table in tables {
            for column in try Row.fetchAll(db, sql: "SELECT name, type, \"notnull\" FROM pragma_table_info(?)", arguments: [table]) {
                let name: String = try column.stored("name", in: table)
                let declared = (try column.storedIfPresent("type", in: table) as String? ?? "").uppercased()
                let nullable = (try column.stored("notnull", in: table) as Int64) == 0
                guard let expected = ["INTEGER": "integer", "TEXT": "text", "BLOB": "blob"][declared] else { continue }
                let allowed = nullable ? "'\(expected)', 'null'" : "'\(expected)'"
                let quotedTable = "\"\(table.replacingOccurrences(of: "\"", with: "\"\""))\""
                let quotedColumn = "\"\(name.replacingOccurrences(of: "\"", with: "\"\""))\""
                for row in try Row.fetchAll(
                    db, sql: "SELECT typeof(\(quotedColumn)) AS kind, COUNT(*) AS n FROM \(quotedTable) WHERE typeof(\(quotedColumn)) NOT IN (\(allowed)) GROUP BY kind")
                {
                    let kind: String = try row.stored("kind", in: table)
                    let count: Int64 = try row.stored("n", in: table)
                    problems.append("\(table).\(name): \(count) row\(count == 1 ? "" : "s") hold\(count == 1 ? "s" : "") \(kind), expected \(expected)")
                }
            }
        }
        return problems
    }

    /// Refuses a file that does not start with SQLite's header.
    private static func requireSQLiteHeader(_ path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw RefusedError(path: path, reason: "it cannot be read (check its owner and permissions).")
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        guard header == Data("SQLite format 3\u{0}".utf8) else {
            throw RefusedError(path: path, reason: "it is not a SQLite database (damaged, or another kind of file). Restore it from a backup.")
        }
    }

    /// Refuses a SQLite file whose schema is another application's, or whose migrations
    /// include one this server does not know (a newer server wrote it).
    private static func requireNimbusSchema(_ db: Database, path: String) throws {
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        if tables.isEmpty { return }
        guard tables.contains("grdb_migrations") else {
            throw RefusedError(
                path: path,
                reason: "it is a SQLite database of another application (tables: \(tables.sorted().prefix(5).joined(separator: ", "))), not a Nimbus server's. Point --data-dir at a Nimbus data folder.")
        }
        let known = Set(SQLiteSchema.migrator.migrations)
        let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
        let unknown = applied.filter { !known.contains($0) }
        if !unknown.isEmpty {
            throw RefusedError(
                path: path,
                reason: "it holds migrations this server does not know (\(unknown.sorted().joined(separator: ", "))): a newer Nimbus server (or another application) wrote it. Run the newer server.")
        }
    }

    /// Opens the file read-only (no WAL switch, nothing written) and maps SQLite's refusals.
    private static func withReadOnlyDatabase<T>(_ path: String, _ body: (Database) throws -> T) throws -> T {
        var configuration = Configuration()
        configuration.readonly = true
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read(body)
        } catch let refused as RefusedError {
            throw refused
        } catch let error as DatabaseError {
            throw RefusedError(path: path, reason: "SQLite cannot read it (\(error.resultCode): \(error.message ?? "")). Restore it from a backup.")
        }
    }
}
