import BenchmarkScenarios
import Foundation
import GRDB
import GRDBSQLite
import Nimbus

/// One item as the raw C and GRDB contenders read it.
struct ItemRow: Equatable {
    var id: Int64
    var category: String
    var score: Int64
    var title: String
}

extension ItemRow: FetchableRecord {
    init(row: Row) {
        id = row[0]
        category = row[1]
        score = row[2]
        title = row[3]
    }
}

extension QueryScenario {
    static let fetchThreshold: Int64 = 500_000
    static let fetchLimit = 100

    /// Indexed predicate fetch, sorted, with a limit: `score > 500,000 ORDER BY score LIMIT 100`
    /// on 1,000,000 rows, every contender on the same file, table and index. Connections stay
    /// open across runs; Nimbus gets a new context per run (nothing registered yet) and
    /// materializes the objects; raw C prepares its statement in the run.
    nonisolated(unsafe) public static let indexedFetch = QueryScenario(
        key: "indexedFetch", title: "indexed predicate fetch, sorted, limit 100, on 1,000,000 rows", runs: 21
    ) { fixtures in
        let file = try fixtures.million()
        let rows = 1_000_000 / fixtures.divisor
        let threshold = fetchThreshold / Int64(fixtures.divisor)
        let expected = (1...Int64(fetchLimit)).map { threshold + $0 }

        let coordinator = try ItemStore.coordinator(file)
        var context: ManagedObjectContext?
        var scores: [Int64] = []
        let nimbus = QueryCase("Nimbus", rows: rows, prepare: { context = ItemStore.context(coordinator) }, run: {
            let context = context!
            scores = try context.performAndWait { () throws in
                var request = FetchRequest<ManagedObject>(entityName: "Item")
                request.predicate = try QueryPredicate(format: "score > %@", threshold)
                request.sortDescriptors = [FetchSortDescriptor("score")]
                request.fetchLimit = fetchLimit
                request.returnsObjectsAsFaults = false
                return try context.fetch(request).map { object in
                    _ = object.value(forKey: "title") as! String
                    _ = object.value(forKey: "category") as! String
                    return object.value(forKey: "score") as! Int64
                }
            }
        }, verify: {
            try check(scores == expected, "Nimbus fetched scores \(scores.prefix(3))…")
            scores = []
            context = nil
        })

        let raw = try RawConnection(file)
        var items: [ItemRow] = []
        let sql = "SELECT Z_PK, ZCATEGORY, ZSCORE, ZTITLE FROM ZITEM WHERE ZSCORE > ? ORDER BY ZSCORE LIMIT ?"
        let rawCase = QueryCase("raw SQLite C", rows: rows, run: {
            let statement = try raw.prepare(sql)
            defer { sqlite3_finalize(statement) }
            sqlite3_bind_int64(statement, 1, threshold)
            sqlite3_bind_int64(statement, 2, Int64(fetchLimit))
            var result: [ItemRow] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                result.append(ItemRow(id: sqlite3_column_int64(statement, 0),
                                      category: String(cString: sqlite3_column_text(statement, 1)),
                                      score: sqlite3_column_int64(statement, 2),
                                      title: String(cString: sqlite3_column_text(statement, 3))))
            }
            items = result
        }, verify: {
            try check(items.map(\.score) == expected, "raw C fetched \(items.count) items")
            items = []
        })

        let pool = try DatabasePool(path: file.path)
        let grdb = QueryCase("GRDB query interface", rows: rows, run: {
            items = try pool.read { db in
                try Table<ItemRow>("ZITEM")
                    .select(Column("Z_PK"), Column("ZCATEGORY"), Column("ZSCORE"), Column("ZTITLE"))
                    .filter(Column("ZSCORE") > threshold)
                    .order(Column("ZSCORE"))
                    .limit(fetchLimit)
                    .fetchAll(db)
            }
        }, verify: {
            try check(items.map(\.score) == expected, "GRDB fetched \(items.count) items")
            items = []
        })
        return [nimbus, rawCase, grdb]
    }

    /// Group-by count on 1,000,000 rows: one row per category with its count.
    nonisolated(unsafe) public static let groupByCount = QueryScenario(
        key: "groupByCount", title: "group-by count on 1,000,000 rows (20 groups)", runs: 7
    ) { fixtures in
        let file = try fixtures.million()
        let rows = 1_000_000 / fixtures.divisor
        let perCategory = rows / ItemStore.categories
        var counts: [String: Int64] = [:]
        func verify(_ who: String) throws {
            try check(counts.count == ItemStore.categories && counts.values.allSatisfy { $0 == perCategory },
                      "\(who) counted \(counts.count) groups: \(counts.prefix(2))")
            counts = [:]
        }

        let coordinator = try ItemStore.coordinator(file)
        var context: ManagedObjectContext?
        let nimbus = QueryCase("Nimbus", rows: rows, prepare: { context = ItemStore.context(coordinator) }, run: {
            let context = context!
            let groups = try context.performAndWait { () throws in
                var request = FetchRequest<[String: Any]>(entityName: "Item")
                request.propertiesToFetch = ["category", .expression(name: "count", .function("count:", [.keyPath(["category"])]), type: .integer64)]
                request.propertiesToGroupBy = ["category"]
                return try context.fetch(request)
            }
            for group in groups { counts[group["category"] as! String] = group["count"] as? Int64 }
        }, verify: { try verify("Nimbus"); context = nil })

        let raw = try RawConnection(file)
        let sql = "SELECT ZCATEGORY, count(ZCATEGORY) FROM ZITEM GROUP BY ZCATEGORY"
        let rawCase = QueryCase("raw SQLite C", rows: rows, run: {
            let statement = try raw.prepare(sql)
            defer { sqlite3_finalize(statement) }
            while sqlite3_step(statement) == SQLITE_ROW {
                counts[String(cString: sqlite3_column_text(statement, 0))] = sqlite3_column_int64(statement, 1)
            }
        }, verify: { try verify("raw C") })

        let pool = try DatabasePool(path: file.path)
        let grdb = QueryCase("GRDB query interface", rows: rows, run: {
            let rows = try pool.read { db in
                try Table("ZITEM")
                    .select(Column("ZCATEGORY"), count(Column("ZCATEGORY")))
                    .group(Column("ZCATEGORY"))
                    .fetchAll(db)
            }
            for row in rows { counts[row[0]] = row[1] }
        }, verify: { try verify("GRDB") })
        return [nimbus, rawCase, grdb]
    }
}
