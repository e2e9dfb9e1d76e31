import BenchmarkScenarios
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
    /// Whether the table adds the 99th percentile (scenarios that run one query per run).
    public var percentiles = false
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
/// A failed check of a query scenario's work.
public typealias QueryCheckFailure = BenchmarkCheckFailure

func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw QueryCheckFailure(message()) }
}

/// The query scenarios' raw SQLite C side: the shared connection plus a few helpers.
extension RawConnection {
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
