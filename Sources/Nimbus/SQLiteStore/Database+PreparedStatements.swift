import GRDB
import GRDBSQLite

/// Transactions and one-value reads through statements prepared once per connection.
///
/// GRDB's `write` and `inTransaction` parse `BEGIN IMMEDIATE TRANSACTION` and
/// `COMMIT TRANSACTION` again on every transaction, and its `fetchOne` builds a cursor for
/// a single integer; on a one-object save these were a tenth of Nimbus's own time. The
/// statements here come from the connection's statement cache and run through GRDB's
/// `Statement.execute()`, so its transaction tracking and hooks still see them.
extension Database {
    /// Runs `work` inside a write transaction: commits when it returns, rolls back when it
    /// throws (a transaction SQLite already rolled back becomes `SQLITE_ABORT`, as in GRDB's
    /// `inTransaction`).
    func inWriteTransaction<T>(_ work: (Database) throws -> T) throws -> T {
        try beginWriteTransaction()
        do {
            let result = try work(self)
            try commitWriteTransaction()
            return result
        } catch {
            if isInsideTransaction { try? rollback() }
            throw error
        }
    }

    /// Begins an `IMMEDIATE` transaction (the writer's lock taken at once, so two writers
    /// never meet halfway through); a `DEFERRED` one on a read-only connection, where SQLite
    /// refuses the other kinds (as GRDB does).
    func beginWriteTransaction() throws {
        if configuration.readonly {
            try beginTransaction(.deferred)
        } else {
            try cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        }
    }

    /// Commits the open transaction; throws `SQLITE_ABORT` when SQLite rolled it back
    /// already (an I/O error, a full disk) instead of SQLite's "no transaction is active".
    func commitWriteTransaction() throws {
        guard isInsideTransaction else {
            throw DatabaseError(resultCode: .SQLITE_ABORT, message: "Transaction was aborted")
        }
        try cachedStatement(sql: "COMMIT TRANSACTION").execute()
    }

    /// The first column of the first row of a statement without arguments, read straight
    /// through SQLite's C API; nil when it returns no row.
    ///
    /// Only for reads that observers need not see (pragmas, counters).
    func int64Value(sql: String) throws -> Int64? {
        let handle = try cachedStatement(sql: sql).sqliteStatement
        sqlite3_reset(handle)
        defer { sqlite3_reset(handle) }
        switch sqlite3_step(handle) {
        case SQLITE_ROW:
            return sqlite3_column_int64(handle, 0)
        case SQLITE_DONE:
            return nil
        case let code:
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqliteConnection)), sql: sql)
        }
    }
}

extension Statement {
    /// Steps through the statement's rows with SQLite's C API, handing `body` the statement
    /// positioned on each row; resets the statement afterwards, also when `body` throws.
    ///
    /// GRDB's cursors add a closure call and several checks per row (a few percent of a
    /// large fetch). The checks serve GRDB's database observation, which Nimbus does not use:
    /// stores are observed through their persistent history.
    func forEachRow(arguments: StatementArguments = StatementArguments(), _ body: (SQLiteStatement) throws -> Void) throws {
        try setArguments(arguments)
        let handle = sqliteStatement
        defer { sqlite3_reset(handle) }
        while true {
            switch sqlite3_step(handle) {
            case SQLITE_ROW:
                try body(handle)
            case SQLITE_DONE:
                return
            case let code:
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))), sql: sql)
            }
        }
    }
}
