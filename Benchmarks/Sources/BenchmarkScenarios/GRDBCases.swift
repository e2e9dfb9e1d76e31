import Foundation
import GRDB

/// The GRDB side: a record struct with hand-written row decoding and encoding (GRDB's
/// fastest record form), on a `DatabasePool` (WAL, synchronous=NORMAL).
struct GRDBPost: FetchableRecord, MutablePersistableRecord, Equatable {
    static let databaseTableName = "post"

    var id: Int64?
    var values: PostValues

    init(id: Int64? = nil, values: PostValues) {
        self.id = id
        self.values = values
    }

    init(row: Row) {
        id = row["id"]
        values = PostValues(
            title: row["title"],
            body: row["body"],
            views: row["views"],
            rating: row["rating"],
            createdAt: Date(timeIntervalSinceReferenceDate: row["createdAt"]),
            published: row["published"])
    }

    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["title"] = values.title
        container["body"] = values.body
        container["views"] = values.views
        container["rating"] = values.rating
        container["createdAt"] = values.createdAt.timeIntervalSinceReferenceDate
        container["published"] = values.published
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    static func open(_ file: URL) throws -> DatabasePool {
        try DatabasePool(path: file.path)
    }

    static func createTable(_ pool: DatabasePool) throws {
        try pool.write { db in
            try db.create(table: "post") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("title", .text)
                t.column("body", .text)
                t.column("views", .integer)
                t.column("rating", .double)
                t.column("createdAt", .double)
                t.column("published", .boolean)
            }
        }
    }

    /// Inserts posts one record at a time in one `write`.
    static func insert(_ posts: ArraySlice<PostValues>, into pool: DatabasePool) throws {
        try pool.write { db in
            for values in posts {
                var post = GRDBPost(values: values)
                try post.insert(db)
            }
        }
    }

    static func fill(_ file: URL, rows: Int) throws {
        let pool = try open(file)
        try createTable(pool)
        try insert(PostValues.sample(count: rows)[...], into: pool)
    }
}

final class GRDBInsert: BenchmarkCase {
    let scenario = Scenario.insert
    let contender = Contender.grdb
    let folder: ScratchFolder
    let posts: [PostValues]
    private var file: URL?
    private var pool: DatabasePool?

    init(folder: ScratchFolder, posts: [PostValues]) {
        self.folder = folder
        self.posts = posts
    }

    func prepare() throws {
        let file = folder.newFile("grdb-insert")
        self.file = file
        let pool = try GRDBPost.open(file)
        try GRDBPost.createTable(pool)
        self.pool = pool
    }

    func run() throws {
        try GRDBPost.insert(posts[...], into: pool!)
    }

    func verify() throws {
        let count = try pool!.read { db in try GRDBPost.fetchCount(db) }
        pool = nil
        guard count == posts.count else { throw BenchmarkCheckFailure("GRDB inserted \(count) posts, not \(posts.count)") }
        folder.removeDatabase(at: file!)
    }
}

final class GRDBFetchMaterialized: BenchmarkCase {
    let scenario: Scenario
    let contender = Contender.grdb
    let file: URL
    /// Whether the timed run also reads every title.
    let readsTitles: Bool
    private var pool: DatabasePool?
    private var posts: [GRDBPost] = []
    private var titleBytes = 0

    init(file: URL, readsTitles: Bool) {
        self.file = file
        self.readsTitles = readsTitles
        scenario = readsTitles ? .fetchAndReadTitles : .fetchMaterialized
    }

    func prepare() throws {
        pool = try GRDBPost.open(file)
    }

    func run() throws {
        posts = try pool!.read { db in try GRDBPost.fetchAll(db) }
        if readsTitles { titleBytes = posts.reduce(0) { $0 &+ $1.values.title.utf8.count } }
    }

    func verify() throws {
        guard posts.count == scenario.rows, posts[7].values == PostValues.sample(7), !readsTitles || titleBytes > 0 else {
            throw BenchmarkCheckFailure("GRDB fetched \(posts.count) posts")
        }
        posts = []
        pool = nil
    }
}

final class GRDBFetchFaults: BenchmarkCase {
    let scenario = Scenario.fetchFaults
    let contender = Contender.grdb
    let file: URL
    private var pool: DatabasePool?
    private var ids: [Int64] = []
    private var fired: [GRDBPost] = []

    init(file: URL) { self.file = file }

    func prepare() throws {
        pool = try GRDBPost.open(file)
    }

    func run() throws {
        (ids, fired) = try pool!.read { db in
            let ids = try Int64.fetchAll(db, sql: "SELECT id FROM post")
            var fired: [GRDBPost] = []
            for index in stride(from: 0, to: ids.count, by: Scenario.fireStride) {
                if let post = try GRDBPost.fetchOne(db, key: ids[index]) { fired.append(post) }
            }
            return (ids, fired)
        }
    }

    func verify() throws {
        guard ids.count == scenario.rows, fired.count == scenario.rows / Scenario.fireStride,
              fired[1].values == PostValues.sample(Scenario.fireStride) else {
            throw BenchmarkCheckFailure("GRDB fetched \(ids.count) IDs and fired \(fired.count)")
        }
        ids = []
        fired = []
        pool = nil
    }
}
