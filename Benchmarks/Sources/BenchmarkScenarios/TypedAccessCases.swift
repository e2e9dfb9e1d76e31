import Foundation
import GRDB
import GRDBSQLite
import Nimbus

/// The benchmark's post as a typed `@Managed` class, on the same store as ``NimbusStore``
/// (same entity, same version hash).
@Managed(entityName: "Post") final class BenchPost: ManagedObject {
    var title: String?
    var body: String?
    var views: Int64?
    var rating: Double?
    var createdAt: Date?
    var published: Bool?
}

enum NimbusTypedStore {
    static let model: ManagedObjectModel = try! ManagedObjectModel(BenchPost.self)

    static func open(_ file: URL) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: file))
        return ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
    }

    static func fetch(_ context: ManagedObjectContext) throws -> [BenchPost] {
        var request = BenchPost.fetchRequest()
        request.returnsObjectsAsFaults = false
        return try context.fetch(request)
    }

    /// Reads every title through the typed accessor.
    static func titleBytes(_ posts: [BenchPost]) -> Int {
        var bytes = 0
        for post in posts { bytes &+= post.title.unsafelyUnwrapped.utf8.count }
        return bytes
    }
}

/// Nimbus: fetch (materialized) and read every title through `post.title`, both timed.
final class NimbusTypedFetchAndRead: BenchmarkCase {
    let scenario = Scenario.fetchAndReadTitlesTyped
    let contender = Contender.nimbus
    let file: URL
    private var context: ManagedObjectContext?
    private var posts: [BenchPost] = []
    private var titleBytes = 0

    init(file: URL) { self.file = file }

    func prepare() throws {
        context = try NimbusTypedStore.open(file)
    }

    func run() throws {
        let context = context!
        try context.performAndWait { () throws in
            posts = try NimbusTypedStore.fetch(context)
            titleBytes = NimbusTypedStore.titleBytes(posts)
        }
    }

    func verify() throws {
        let expected = context!.performAndWait { posts.reduce(0) { $0 &+ (($1.value(forKey: "title") as? String)?.utf8.count ?? 0) } }
        guard posts.count == scenario.rows, titleBytes == expected, titleBytes > 0 else {
            throw BenchmarkCheckFailure("Nimbus typed read \(titleBytes) title bytes of \(posts.count) posts, expected \(expected)")
        }
        posts = []
        context = nil
    }
}

/// Every contender's read of all titles of 200,000 already fetched posts: Nimbus through the
/// typed accessor, GRDB and raw C from a struct field. Only the read is timed.
final class ReadTitles: BenchmarkCase {
    let scenario = Scenario.readTitles
    let contender: Contender
    let file: URL
    private var context: ManagedObjectContext?
    private var nimbusPosts: [BenchPost] = []
    private var structPosts: [PostValues] = []
    private var titleBytes = 0

    init(file: URL, contender: Contender) {
        self.file = file
        self.contender = contender
    }

    func prepare() throws {
        titleBytes = 0
        switch contender {
        case .nimbus:
            let context = try NimbusTypedStore.open(file)
            self.context = context
            nimbusPosts = try context.performAndWait { try NimbusTypedStore.fetch(context) }
        case .grdb:
            let pool = try GRDBPost.open(file)
            structPosts = try pool.read { db in try GRDBPost.fetchAll(db) }.map(\.values)
        case .rawSQLite:
            let db = try RawSQLite(file)
            let statement = try db.prepare("SELECT \(RawSQLite.columns) FROM post")
            defer { sqlite3_finalize(statement) }
            var posts: [PostValues] = []
            while sqlite3_step(statement) == SQLITE_ROW { posts.append(RawSQLite.read(statement).1) }
            structPosts = posts
        }
    }

    func run() throws {
        switch contender {
        case .nimbus:
            let context = context!
            titleBytes = context.performAndWait { NimbusTypedStore.titleBytes(nimbusPosts) }
        case .grdb, .rawSQLite:
            var bytes = 0
            for post in structPosts { bytes &+= post.title.utf8.count }
            titleBytes = bytes
        }
    }

    func verify() throws {
        let count = contender == .nimbus ? nimbusPosts.count : structPosts.count
        guard count == scenario.rows, titleBytes > 0 else {
            throw BenchmarkCheckFailure("\(contender.rawValue) read \(titleBytes) title bytes of \(count) posts")
        }
        nimbusPosts = []
        structPosts = []
        context = nil
    }
}
