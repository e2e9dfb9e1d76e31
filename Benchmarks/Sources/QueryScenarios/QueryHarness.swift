import Foundation
import GRDBSQLite

/// One contender's implementation of a query scenario, as three closures: ``prepare``
/// (not timed: a fresh copy of a fixture, a new connection or context), ``run`` (timed) and
/// ``verify`` (not timed; throws when the run did not do its work, and releases what it kept).
public struct QueryCase {
    public var contender: String
    public var rows: Int
    public var prepare: () throws -> Void
    public var run: () throws -> Void
    public var verify: () throws -> Void

    public init(_ contender: String, rows: Int, prepare: @escaping () throws -> Void = {}, run: @escaping () throws -> Void,
                verify: @escaping () throws -> Void) {
        self.contender = contender
        self.rows = rows
        self.prepare = prepare
        self.run = run
        self.verify = verify
    }
}

/// A scenario: its name on the command line, its table title, how many timed runs it gets,
/// and its cases (made on demand, since fixtures take a while to build).
public struct QueryScenario {
    public var key: String
    public var title: String
    public var runs: Int
    /// A sentence under the table: what the target is.
    public var target: String?
    public var makeCases: (QueryFixtures) throws -> [QueryCase]
}

/// A folder in the system's temporary directory, removed when released.
public final class QueryScratch: @unchecked Sendable {
    public let url: URL
    private var counter = 0

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-query-bench-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A new file name in the folder, never used before.
    public func newFile(_ stem: String) -> URL {
        counter += 1
        return url.appendingPathComponent("\(stem)-\(counter).sqlite")
    }

    /// Removes a SQLite file and its `-wal` and `-shm` companions.
    public func remove(_ file: URL) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
    }

    /// Copies a checkpointed fixture (no `-wal`) to a new file.
    public func copy(_ file: URL, as stem: String) throws -> URL {
        let target = newFile(stem)
        try FileManager.default.copyItem(at: file, to: target)
        return target
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// A benchmark failed its own check (wrong row count, missing values).
public struct QueryCheckFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw QueryCheckFailure(message()) }
}

/// A raw SQLite C connection: WAL and synchronous=NORMAL, like GRDB's `DatabasePool` that
/// Nimbus and the GRDB contender use.
final class RawConnection {
    let handle: OpaquePointer
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ file: URL) throws {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(file.path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_close(handle)
            throw QueryCheckFailure("sqlite3_open_v2 failed: \(code)")
        }
        self.handle = handle
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = NORMAL")
        // Experiments only (never in the published tables): an extra statement, e.g.
        // `QUERY_BENCH_RAW_PRAGMA='PRAGMA cache_size = -65536'`.
        if let extra = ProcessInfo.processInfo.environment["QUERY_BENCH_RAW_PRAGMA"] { try execute(extra) }
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error(sql) }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw error(sql) }
        return statement
    }

    func error(_ sql: String) -> QueryCheckFailure {
        QueryCheckFailure("SQLite error \(String(cString: sqlite3_errmsg(handle))) in \(sql)")
    }

    /// The first column of the first row of a query, as an integer.
    func integer(_ sql: String) throws -> Int64 {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw error(sql) }
        return sqlite3_column_int64(statement, 0)
    }

    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Moves the WAL into the main file, so the file can be copied alone.
    func checkpoint() throws { try execute("PRAGMA wal_checkpoint(TRUNCATE)") }
}
