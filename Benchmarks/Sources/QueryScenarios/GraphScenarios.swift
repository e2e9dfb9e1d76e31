import BenchmarkScenarios
import Foundation
import GRDB
import GRDBSQLite
import Nimbus

/// Posts with comments (one-to-many) and tags (many-to-many): `Post.comments` ↔
/// `Comment.post` (the `ZCOMMENT.ZPOST` foreign key, indexed) and `Post.tags` ↔ `Tag.posts`
/// (a join table). Every post has ``commentsPerPost`` comments and ``tagsPerPost`` tags.
enum GraphStore {
    static let posts = 20_000
    static let commentsPerPost = 5
    static let tags = 200
    static let tagsPerPost = 3

    static let model: ManagedObjectModel = try! ManagedObjectModel {
        EntityDescription("Post") {
            AttributeDescription("title", .string)
            RelationshipDescription("comments", to: "Comment", inverse: "post", toMany: true, deleteRule: .cascade)
            RelationshipDescription("tags", to: "Tag", inverse: "posts", toMany: true)
        }
        EntityDescription("Comment") {
            AttributeDescription("text", .string)
            RelationshipDescription("post", to: "Post", inverse: "comments")
        }
        EntityDescription("Tag") {
            AttributeDescription("name", .string)
            RelationshipDescription("posts", to: "Post", inverse: "tags", toMany: true)
        }
    }

    static func coordinator(_ file: URL) throws -> PersistentStoreCoordinator {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: file))
        return coordinator
    }

    /// Builds the store through the object graph, 1,000 posts per save.
    static func fill(_ file: URL, posts: Int) throws {
        do {
            let context = ItemStore.context(try coordinator(file))
            try context.performAndWait { () throws in
                let tagObjects = try (0..<tags).map { index in
                    let tag = try context.insertNewObject(forEntityName: "Tag")
                    tag.setValue("tag \(index)", forKey: "name")
                    return tag
                }
                try context.save()
                let tagIDs = tagObjects.map(\.objectID)
                for start in stride(from: 0, to: posts, by: 1_000) {
                    for index in start..<min(start + 1_000, posts) {
                        let post = try context.insertNewObject(forEntityName: "Post")
                        post.setValue("post \(index)", forKey: "title")
                        for c in 0..<commentsPerPost {
                            let comment = try context.insertNewObject(forEntityName: "Comment")
                            comment.setValue("comment \(c) on post \(index), some words of text", forKey: "text")
                            comment.setValue(post, forKey: "post")
                        }
                        let tags = (0..<tagsPerPost).map { context.object(with: tagIDs[(index * 7 + $0 * 31) % self.tags]) }
                        post.setValue(Set(tags), forKey: "tags")
                    }
                    try context.save()
                    context.reset()
                }
            }
        }
        let raw = try RawConnection(file)
        try raw.checkpoint()
        let count = try raw.integer("SELECT count(*) FROM ZCOMMENT")
        try check(count == Int64(posts * commentsPerPost), "the graph fixture has \(count) comments")
    }

    /// The join table of `Post.tags` and its columns (post, tag), as the store names them.
    static func joinTable(_ raw: RawConnection) throws -> (table: String, post: String, tag: String) {
        let statement = try raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z\\_%TAGS' ESCAPE '\\'")
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw QueryCheckFailure("no join table for Post.tags") }
        let table = String(cString: sqlite3_column_text(statement, 0))
        let columns = try raw.prepare("SELECT name FROM pragma_table_info('\(table)')")
        defer { sqlite3_finalize(columns) }
        var names: [String] = []
        while sqlite3_step(columns) == SQLITE_ROW { names.append(String(cString: sqlite3_column_text(columns, 0))) }
        guard let post = names.first(where: { $0.hasSuffix("POSTS") }), let tag = names.first(where: { $0.hasSuffix("TAGS") }) else {
            throw QueryCheckFailure("join table \(table) has columns \(names)")
        }
        return (table, post, tag)
    }
}

/// A post with its children as the raw C and GRDB contenders build them.
struct PostTree {
    var id: Int64
    var title: String
    var children: [(id: Int64, text: String)]
}

extension QueryFixtures {
    /// 20,000 posts, 100,000 comments, 200 tags (read-only).
    func graph() throws -> URL {
        try fixture("graph-20k") { try GraphStore.fill($0, posts: GraphStore.posts / divisor) }
    }
}

extension QueryScenario {
    /// The relationship scenarios: posts with their comments (one-to-many) or their tags
    /// (many-to-many), each child's text read, with and without prefetching.
    nonisolated(unsafe) public static let graph: [QueryScenario] = [
        graphScenario(key: "graphPrefetch", relationship: "comments", prefetch: true,
                      title: "20,000 posts × 5 comments: fetch posts with comments prefetched, read every comment's text"),
        graphScenario(key: "graphFaults", relationship: "comments", prefetch: false,
                      title: "20,000 posts × 5 comments: fetch posts, fire every comments fault, read every comment's text"),
        graphScenario(key: "graphManyPrefetch", relationship: "tags", prefetch: true,
                      title: "20,000 posts × 3 of 200 tags (many-to-many): fetch posts with tags prefetched, read every tag's name"),
        graphScenario(key: "graphManyFaults", relationship: "tags", prefetch: false,
                      title: "20,000 posts × 3 of 200 tags (many-to-many): fetch posts, fire every tags fault, read every tag's name"),
        graphScenario(key: "graphRepeat", relationship: "comments", prefetch: true, accesses: 10,
                      title: "20,000 posts × 5 comments, prefetched: read `comments` 10 times per post (count only)"),
        graphScenario(key: "graphPrefetchSubset", relationship: "comments", prefetch: true, subset: true,
                      title: "2,000 of 20,000 posts (title ENDSWITH \"7\": every tenth key) × 5 comments, prefetched, read every comment's text"),
        graphScenario(key: "graphManyPrefetchSubset", relationship: "tags", prefetch: true, subset: true,
                      title: "2,000 of 20,000 posts (title ENDSWITH \"7\": every tenth key) × 3 of 200 tags, prefetched, read every tag's name"),
    ]

    /// `subset`: only posts whose title ends in 7 (every tenth key, so a prefetch cannot read
    /// ranges of keys), filtered by each contender.
    static func graphScenario(key: String, relationship: String, prefetch: Bool, accesses: Int = 0, subset: Bool = false,
                              title: String) -> QueryScenario {
        QueryScenario(key: key, title: title, runs: 5) { fixtures in
            let file = try fixtures.graph()
            let posts = (0..<GraphStore.posts / fixtures.divisor).filter { !subset || $0 % 10 == 7 }.count
            let perPost = relationship == "comments" ? GraphStore.commentsPerPost : GraphStore.tagsPerPost
            let expected = posts * perPost * max(accesses, 1)
            let childKey = relationship == "comments" ? "text" : "name"
            var total = 0

            var context: ManagedObjectContext?
            let coordinator = try GraphStore.coordinator(file)
            let nimbus = QueryCase("Nimbus", rows: posts, prepare: { context = ItemStore.context(coordinator) }, run: {
                let context = context!
                total = try context.performAndWait { () throws in
                    var request = FetchRequest<ManagedObject>(entityName: "Post")
                    if subset { request.predicate = try QueryPredicate(format: "title ENDSWITH %@", "7") }
                    request.returnsObjectsAsFaults = false
                    if prefetch { request.relationshipKeyPathsForPrefetching = [relationship] }
                    var count = 0
                    for post in try context.fetch(request) {
                        _ = post.value(forKey: "title") as! String
                        if accesses > 0 {
                            for _ in 0..<accesses { count += (post.value(forKey: relationship) as! Set<ManagedObject>).count }
                            continue
                        }
                        for child in post.value(forKey: relationship) as! Set<ManagedObject> {
                            _ = child.value(forKey: childKey) as! String
                            count += 1
                        }
                    }
                    return count
                }
            }, verify: {
                try check(total == expected, "Nimbus read \(total) children, not \(expected)")
                total = 0
                context = nil
            })

            // Raw C and GRDB: one LEFT JOIN in post order, built into nested arrays.
            let raw = try RawConnection(file)
            let sql: String
            let filter = subset ? " WHERE p.ZTITLE LIKE '%7'" : ""
            if relationship == "comments" {
                sql = "SELECT p.Z_PK, p.ZTITLE, c.Z_PK, c.ZTEXT FROM ZPOST p LEFT JOIN ZCOMMENT c ON c.ZPOST = p.Z_PK\(filter) ORDER BY p.Z_PK"
            } else {
                let join = try GraphStore.joinTable(raw)
                sql = "SELECT p.Z_PK, p.ZTITLE, t.Z_PK, t.ZNAME FROM ZPOST p LEFT JOIN \(join.table) j ON j.\(join.post) = p.Z_PK "
                    + "LEFT JOIN ZTAG t ON t.Z_PK = j.\(join.tag)\(filter) ORDER BY p.Z_PK"
            }
            func count(_ trees: [PostTree]) -> Int {
                accesses > 0 ? (0..<accesses).reduce(0) { sum, _ in sum + trees.reduce(0) { $0 + $1.children.count } }
                    : trees.reduce(0) { $0 + $1.children.count }
            }
            let rawCase = QueryCase("raw SQLite C (LEFT JOIN)", rows: posts, run: {
                let statement = try raw.prepare(sql)
                defer { sqlite3_finalize(statement) }
                var trees: [PostTree] = []
                while sqlite3_step(statement) == SQLITE_ROW {
                    let id = sqlite3_column_int64(statement, 0)
                    if trees.last?.id != id {
                        trees.append(PostTree(id: id, title: String(cString: sqlite3_column_text(statement, 1)), children: []))
                    }
                    if sqlite3_column_type(statement, 2) != SQLITE_NULL {
                        trees[trees.count - 1].children.append((sqlite3_column_int64(statement, 2), String(cString: sqlite3_column_text(statement, 3))))
                    }
                }
                total = count(trees)
            }, verify: {
                try check(total == expected, "raw C read \(total) children")
                total = 0
            })

            let pool = try DatabasePool(path: file.path)
            let grdb = QueryCase("GRDB rows (LEFT JOIN)", rows: posts, run: {
                let trees = try pool.read { db in
                    var trees: [PostTree] = []
                    let cursor = try Row.fetchCursor(db, sql: sql)
                    while let row = try cursor.next() {
                        let id: Int64 = row[0]
                        if trees.last?.id != id { trees.append(PostTree(id: id, title: row[1], children: [])) }
                        if let child: Int64 = row[2] { trees[trees.count - 1].children.append((child, row[3])) }
                    }
                    return trees
                }
                total = count(trees)
            }, verify: {
                try check(total == expected, "GRDB read \(total) children")
                total = 0
            })
            return [nimbus, rawCase, grdb]
        }
    }
}
