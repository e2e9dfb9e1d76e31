import Foundation
import GRDBSQLite

/// A raw SQLite C connection: WAL and synchronous=NORMAL, like GRDB's `DatabasePool` that
/// Nimbus and the GRDB contender use. Shared by every benchmark runner.
public class RawConnection {
    public let handle: OpaquePointer
    /// Tells SQLite to copy bound text.
    public static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    public init(_ file: URL) throws {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(file.path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle else {
            sqlite3_close(handle)
            throw BenchmarkCheckFailure("sqlite3_open_v2 failed: \(code)")
        }
        self.handle = handle
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = NORMAL")
        // Experiments only (never in the published tables): an extra statement, e.g.
        // `QUERY_BENCH_RAW_PRAGMA='PRAGMA cache_size = -65536'`.
        if let extra = ProcessInfo.processInfo.environment["QUERY_BENCH_RAW_PRAGMA"] { try execute(extra) }
    }

    deinit { sqlite3_close_v2(handle) }

    public func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error(sql) }
    }

    public func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw error(sql) }
        return statement
    }

    public func error(_ sql: String) -> BenchmarkCheckFailure {
        BenchmarkCheckFailure("SQLite error \(String(cString: sqlite3_errmsg(handle))) in \(sql)")
    }
}

/// The raw SQLite C side of the object-graph scenarios: prepared statements on a
/// connection of its own.
final class RawSQLite: RawConnection {
    static let createTable = """
        CREATE TABLE post (id INTEGER PRIMARY KEY, title TEXT, body TEXT, views INTEGER, \
        rating REAL, createdAt REAL, published INTEGER)
        """
    static let columns = "id, title, body, views, rating, createdAt, published"

    /// Inserts posts with one prepared statement in one transaction.
    func insert(_ posts: ArraySlice<PostValues>) throws {
        let sql = "INSERT INTO post (title, body, views, rating, createdAt, published) VALUES (?, ?, ?, ?, ?, ?)"
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        try execute("BEGIN")
        for post in posts {
            sqlite3_bind_text(statement, 1, post.title, -1, Self.transient)
            sqlite3_bind_text(statement, 2, post.body, -1, Self.transient)
            sqlite3_bind_int64(statement, 3, post.views)
            sqlite3_bind_double(statement, 4, post.rating)
            sqlite3_bind_double(statement, 5, post.createdAt.timeIntervalSinceReferenceDate)
            sqlite3_bind_int(statement, 6, post.published ? 1 : 0)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw error(sql) }
            sqlite3_reset(statement)
        }
        try execute("COMMIT")
    }

    /// The current row of a `SELECT id, title, …` statement.
    @inline(__always)
    static func read(_ statement: OpaquePointer) -> (Int64, PostValues) {
        (sqlite3_column_int64(statement, 0),
         PostValues(
            title: String(cString: sqlite3_column_text(statement, 1)),
            body: String(cString: sqlite3_column_text(statement, 2)),
            views: sqlite3_column_int64(statement, 3),
            rating: sqlite3_column_double(statement, 4),
            createdAt: Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, 5)),
            published: sqlite3_column_int(statement, 6) != 0))
    }

    func count() throws -> Int {
        let statement = try prepare("SELECT count(*) FROM post")
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw error("SELECT count(*)") }
        return Int(sqlite3_column_int64(statement, 0))
    }

    static func fill(_ file: URL, rows: Int) throws {
        let db = try RawSQLite(file)
        try db.execute(createTable)
        try db.insert(PostValues.sample(count: rows)[...])
    }
}

/// A post read by the raw C side: its primary key and values.
struct RawPost {
    var id: Int64
    var values: PostValues
}

final class RawSQLiteInsert: BenchmarkCase {
    let scenario = Scenario.insert
    let contender = Contender.rawSQLite
    let folder: ScratchFolder
    let posts: [PostValues]
    private var file: URL?
    private var db: RawSQLite?

    init(folder: ScratchFolder, posts: [PostValues]) {
        self.folder = folder
        self.posts = posts
    }

    func prepare() throws {
        let file = folder.newFile("raw-insert")
        self.file = file
        let db = try RawSQLite(file)
        try db.execute(RawSQLite.createTable)
        self.db = db
    }

    func run() throws {
        try db!.insert(posts[...])
    }

    func verify() throws {
        let count = try db!.count()
        db = nil
        guard count == posts.count else { throw BenchmarkCheckFailure("raw C inserted \(count) posts, not \(posts.count)") }
        folder.removeDatabase(at: file!)
    }
}

final class RawSQLiteFetchMaterialized: BenchmarkCase {
    let scenario: Scenario
    let contender = Contender.rawSQLite
    let file: URL
    /// Whether the timed run also reads every title.
    let readsTitles: Bool
    private var db: RawSQLite?
    private var posts: [RawPost] = []
    private var titleBytes = 0

    init(file: URL, readsTitles: Bool) {
        self.file = file
        self.readsTitles = readsTitles
        scenario = readsTitles ? .fetchAndReadTitles : .fetchMaterialized
    }

    func prepare() throws {
        db = try RawSQLite(file)
    }

    func run() throws {
        let db = db!
        let statement = try db.prepare("SELECT \(RawSQLite.columns) FROM post")
        defer { sqlite3_finalize(statement) }
        var posts: [RawPost] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw db.error("SELECT") }
            let (id, values) = RawSQLite.read(statement)
            posts.append(RawPost(id: id, values: values))
        }
        self.posts = posts
        if readsTitles { titleBytes = posts.reduce(0) { $0 &+ $1.values.title.utf8.count } }
    }

    func verify() throws {
        guard posts.count == scenario.rows, posts[7].values == PostValues.sample(7), !readsTitles || titleBytes > 0 else {
            throw BenchmarkCheckFailure("raw C fetched \(posts.count) posts")
        }
        posts = []
        db = nil
    }
}

final class RawSQLiteFetchFaults: BenchmarkCase {
    let scenario = Scenario.fetchFaults
    let contender = Contender.rawSQLite
    let file: URL
    private var db: RawSQLite?
    private var ids: [Int64] = []
    private var fired: [RawPost] = []

    init(file: URL) { self.file = file }

    func prepare() throws {
        db = try RawSQLite(file)
    }

    func run() throws {
        let db = db!
        let select = try db.prepare("SELECT id FROM post")
        defer { sqlite3_finalize(select) }
        var ids: [Int64] = []
        while sqlite3_step(select) == SQLITE_ROW { ids.append(sqlite3_column_int64(select, 0)) }
        let one = try db.prepare("SELECT \(RawSQLite.columns) FROM post WHERE id = ?")
        defer { sqlite3_finalize(one) }
        var fired: [RawPost] = []
        for index in stride(from: 0, to: ids.count, by: Scenario.fireStride) {
            sqlite3_bind_int64(one, 1, ids[index])
            guard sqlite3_step(one) == SQLITE_ROW else { throw db.error("SELECT … WHERE id = ?") }
            let (id, values) = RawSQLite.read(one)
            fired.append(RawPost(id: id, values: values))
            sqlite3_reset(one)
        }
        self.ids = ids
        self.fired = fired
    }

    func verify() throws {
        guard ids.count == scenario.rows, fired.count == scenario.rows / Scenario.fireStride,
              fired[1].values == PostValues.sample(Scenario.fireStride) else {
            throw BenchmarkCheckFailure("raw C fetched \(ids.count) IDs and fired \(fired.count)")
        }
        ids = []
        fired = []
        db = nil
    }
}
