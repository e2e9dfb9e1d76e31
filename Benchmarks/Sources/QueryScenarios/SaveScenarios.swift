import BenchmarkScenarios
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GRDB
import GRDBSQLite
import Nimbus

/// The resident set size of this process, in bytes, after glibc's `malloc_trim` has given
/// freed memory back (so memory freed by a warm-up run and reused does not hide what a run
/// allocates). Linux only (`/proc/self/statm`); 0 elsewhere.
func residentBytesAfterTrim() -> Int {
    #if canImport(Glibc)
    if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
        typealias Trim = @convention(c) (Int) -> Int32
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
    #endif
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

extension QueryScenario {
    /// One new object per save, 1,000 saves, each its own transaction, WAL and
    /// `synchronous=NORMAL` for every contender.
    nonisolated(unsafe) public static let singleSaves = QueryScenario(
        key: "singleSaves", title: "1,000 saves of one new object each (WAL, synchronous=NORMAL)", runs: 7,
        target: "Nimbus ≥ 60% of raw C's one-row commit rate (ratio ≤ 1.67×)."
    ) { fixtures in
        let saves = 1_000 / fixtures.divisor
        var count = 0
        var file: URL?
        func verify(_ who: String) throws {
            let raw = try RawConnection(file!)
            let rows = try raw.integer("SELECT count(*) FROM ZITEM")
            try check(rows == Int64(saves), "\(who) saved \(rows) rows, not \(saves)")
            fixtures.scratch.remove(file!)
            file = nil
        }
        /// An empty Nimbus store (its schema made by Nimbus), for every contender.
        func emptyStore() throws -> URL {
            let made = fixtures.scratch.newFile("single-saves")
            _ = try ItemStore.coordinator(made)
            return made
        }

        var context: ManagedObjectContext?
        let nimbus = QueryCase("Nimbus", rows: saves, prepare: {
            file = try emptyStore()
            context = ItemStore.context(try ItemStore.coordinator(file!))
        }, run: {
            let context = context!
            try context.performAndWait { () throws in
                for index in 0..<saves {
                    let item = try context.insertNewObject(forEntityName: "Item")
                    item.setValue("category-\(index % 20)", forKey: "category")
                    item.setValue(Int64(index), forKey: "score")
                    item.setValue("Item number \(index)", forKey: "title")
                    item.setValue(false, forKey: "flag")
                    try context.save()
                }
            }
        }, verify: { context = nil; try verify("Nimbus") })

        var raw: RawConnection?
        let rawCase = QueryCase("raw SQLite C (one-row transactions)", rows: saves, prepare: {
            file = try emptyStore()
            raw = try RawConnection(file!)
        }, run: {
            let raw = raw!
            let sql = "INSERT INTO ZITEM (Z_ENT, Z_OPT, ZCATEGORY, ZSCORE, ZTITLE, ZFLAG) VALUES (1, 1, ?, ?, ?, 0)"
            let statement = try raw.prepare(sql)
            defer { sqlite3_finalize(statement) }
            for index in 0..<saves {
                try raw.execute("BEGIN IMMEDIATE")
                sqlite3_bind_text(statement, 1, "category-\(index % 20)", -1, RawConnection.transient)
                sqlite3_bind_int64(statement, 2, Int64(index))
                sqlite3_bind_text(statement, 3, "Item number \(index)", -1, RawConnection.transient)
                guard sqlite3_step(statement) == SQLITE_DONE else { throw raw.error(sql) }
                sqlite3_reset(statement)
                try raw.execute("COMMIT")
            }
            count = saves
        }, verify: { raw = nil; try verify("raw C") })

        var pool: DatabasePool?
        let grdb = QueryCase("GRDB (one write each)", rows: saves, prepare: {
            file = try emptyStore()
            pool = try DatabasePool(path: file!.path)
        }, run: {
            let pool = pool!
            for index in 0..<saves {
                try pool.write { db in
                    try db.execute(sql: "INSERT INTO ZITEM (Z_ENT, Z_OPT, ZCATEGORY, ZSCORE, ZTITLE, ZFLAG) VALUES (1, 1, ?, ?, ?, 0)",
                                   arguments: ["category-\(index % 20)", Int64(index), "Item number \(index)"])
                }
            }
        }, verify: { pool = nil; try verify("GRDB") })
        return [nimbus, rawCase, grdb]
    }

    /// Inserting N posts with one save, at 50,000 and 1,000,000 (the object-graph benchmark's
    /// `Post`: six attributes, no index but the primary key), plus the batch insert of the
    /// same rows; the heap per pending object is printed to standard error.
    nonisolated(unsafe) public static let growth: [QueryScenario] = [
        growthScenario(rows: 50_000, runs: 5),
        growthScenario(rows: 1_000_000, runs: 3),
    ]

    static let growthModel: ManagedObjectModel = try! ManagedObjectModel {
        EntityDescription("Post") {
            AttributeDescription("title", .string)
            AttributeDescription("body", .string)
            AttributeDescription("views", .integer64)
            AttributeDescription("rating", .double)
            AttributeDescription("createdAt", .date)
            AttributeDescription("published", .boolean)
        }
    }

    static func growthScenario(rows fullRows: Int, runs: Int) -> QueryScenario {
        QueryScenario(key: fullRows >= 1_000_000 ? "growth1M" : "growth50k",
                      title: "insert \(ReportFormatting.grouped(fullRows)) posts, one save (growth)", runs: runs,
                      target: fullRows >= 1_000_000 ? "Nimbus ≤ 3× raw C; linear growth (≤ 22× the 50,000-post time)." : nil) { fixtures in
            let rows = fullRows / fixtures.divisor
            let posts = PostValues.sample(count: rows)
            var file: URL?
            func coordinator(_ file: URL) throws -> PersistentStoreCoordinator {
                let coordinator = PersistentStoreCoordinator(managedObjectModel: growthModel)
                try coordinator.addPersistentStore(with: PersistentStoreDescription(url: file))
                return coordinator
            }
            func verify(_ who: String) throws {
                let raw = try RawConnection(file!)
                let count = try raw.integer("SELECT count(*) FROM ZPOST")
                try check(count == Int64(rows), "\(who) saved \(count) rows, not \(rows)")
                fixtures.scratch.remove(file!)
                file = nil
            }
            func emptyStore() throws -> URL {
                let made = fixtures.scratch.newFile("growth")
                _ = try coordinator(made)
                return made
            }

            var context: ManagedObjectContext?
            let nimbus = QueryCase("Nimbus (insertNewObject + setValue, one save)", rows: rows, prepare: {
                file = try emptyStore()
                context = ItemStore.context(try coordinator(file!))
            }, run: {
                let context = context!
                try context.performAndWait { () throws in
                    let before = residentBytesAfterTrim()
                    for post in posts {
                        let object = try context.insertNewObject(forEntityName: "Post")
                        object.setValue(post.title, forKey: "title")
                        object.setValue(post.body, forKey: "body")
                        object.setValue(post.views, forKey: "views")
                        object.setValue(post.rating, forKey: "rating")
                        object.setValue(post.createdAt, forKey: "createdAt")
                        object.setValue(post.published, forKey: "published")
                    }
                    let pending = residentBytesAfterTrim() - before
                    try context.save()
                    FileHandle.standardError.write(Data("growth \(rows): \(pending / max(rows, 1)) bytes of resident memory per pending object (inserted, not yet saved)\n".utf8))
                }
            }, verify: { context = nil; try verify("Nimbus") })

            let batch = QueryCase("Nimbus BatchInsertRequest (dictionary handler)", rows: rows, prepare: {
                file = try emptyStore()
                context = ItemStore.context(try coordinator(file!))
            }, run: {
                let context = context!
                try context.performAndWait { () throws in
                    var index = 0
                    let request = BatchInsertRequest(entityName: "Post") { (object: inout [String: Any]) -> Bool in
                        guard index < rows else { return true }
                        let post = posts[index]
                        object = ["title": post.title, "body": post.body, "views": post.views, "rating": post.rating,
                                  "createdAt": post.createdAt, "published": post.published]
                        index += 1
                        return false
                    }
                    _ = try context.execute(request)
                }
            }, verify: { context = nil; try verify("Nimbus batch insert") })

            let sql = "INSERT INTO ZPOST (Z_ENT, Z_OPT, ZTITLE, ZBODY, ZVIEWS, ZRATING, ZCREATEDAT, ZPUBLISHED) VALUES (1, 1, ?, ?, ?, ?, ?, ?)"
            var raw: RawConnection?
            let rawCase = QueryCase("raw SQLite C", rows: rows, prepare: {
                file = try emptyStore()
                raw = try RawConnection(file!)
            }, run: {
                let raw = raw!
                let statement = try raw.prepare(sql)
                defer { sqlite3_finalize(statement) }
                try raw.execute("BEGIN IMMEDIATE")
                for post in posts {
                    sqlite3_bind_text(statement, 1, post.title, -1, RawConnection.transient)
                    sqlite3_bind_text(statement, 2, post.body, -1, RawConnection.transient)
                    sqlite3_bind_int64(statement, 3, post.views)
                    sqlite3_bind_double(statement, 4, post.rating)
                    sqlite3_bind_double(statement, 5, post.createdAt.timeIntervalSinceReferenceDate)
                    sqlite3_bind_int(statement, 6, post.published ? 1 : 0)
                    guard sqlite3_step(statement) == SQLITE_DONE else { throw raw.error(sql) }
                    sqlite3_reset(statement)
                }
                try raw.execute("COMMIT")
            }, verify: { raw = nil; try verify("raw C") })

            var pool: DatabasePool?
            let grdb = QueryCase("GRDB cached statement", rows: rows, prepare: {
                file = try emptyStore()
                pool = try DatabasePool(path: file!.path)
            }, run: {
                try pool!.write { db in
                    let statement = try db.cachedStatement(sql: sql)
                    for post in posts {
                        try statement.execute(arguments: [post.title, post.body, post.views, post.rating,
                                                          post.createdAt.timeIntervalSinceReferenceDate, post.published])
                    }
                }
            }, verify: { pool = nil; try verify("GRDB") })
            return [nimbus, batch, rawCase, grdb]
        }
    }
}
