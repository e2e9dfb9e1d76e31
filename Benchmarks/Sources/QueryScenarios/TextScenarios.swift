import BenchmarkScenarios
import Foundation
import GRDB
import GRDBSQLite
import Nimbus

/// Titles for the text-predicate scenarios: an `Item` store (``ItemStore``) whose titles are
/// 3 to 6 words of a small vocabulary in mixed case. With `accented`, one word in five
/// carries a diacritic (the text is no longer ASCII).
enum TextStore {
    static let words = ["Technology", "market", "report", "MECHANIC", "river", "garden", "Czech", "summer", "window",
                        "Energy", "bridge", "echo", "planet", "science", "Stretch", "museum", "Kitchen", "travel", "forest", "music"]
    static let accented = ["Téchnique", "mécanique", "rivière", "jardín", "Énergie", "écho", "planète", "fôret", "müsik", "Zürich"]

    static func title(_ index: Int, accented useAccents: Bool) -> String {
        var generator = PointStore.Generator(state: UInt64(index) &* 2_654_435_761 &+ 1)
        let count = 3 + Int(generator.next() * 4)
        return (0..<count).map { _ in
            let pick = Int(generator.next() * 1_000_000)
            if useAccents && pick % 5 == 0 { return accented[pick / 5 % accented.count] }
            return words[pick % words.count]
        }.joined(separator: " ")
    }

    static func fill(_ file: URL, rows: Int, accented: Bool) throws {
        do {
            let context = ItemStore.context(try ItemStore.coordinator(file))
            try context.performAndWait { () throws in
                for start in stride(from: 0, to: rows, by: 100_000) {
                    let objects: [[String: Any]] = (start..<min(start + 100_000, rows)).map { index in
                        ["category": "category-\(index % ItemStore.categories)", "score": Int64(index), "title": title(index, accented: accented), "flag": false]
                    }
                    _ = try context.execute(BatchInsertRequest(entityName: "Item", objects: objects))
                }
            }
        }
        try RawConnection(file).checkpoint()
    }
}

extension QueryFixtures {
    /// 200,000 items with word titles (read-only); `accented`: one word in five non-ASCII.
    func titles(accented: Bool) throws -> URL {
        try fixture(accented ? "titles-accented-200k" : "titles-200k") { try TextStore.fill($0, rows: 200_000 / divisor, accented: accented) }
    }
}

extension QueryScenario {
    /// Text predicates with `[c]`, `[d]`, `[cd]` over 200,000 titles, materialized, beside the
    /// raw SQL operator closest in meaning (SQLite's `LIKE` folds ASCII case only).
    nonisolated(unsafe) public static let text: [QueryScenario] = [
        textScenario(key: "textContains", format: "title CONTAINS[cd] %@", argument: "ech", rawWhere: "ZTITLE LIKE '%ech%'",
                     accented: false, title: "`title CONTAINS[cd] \"ech\"` over 200,000 ASCII titles, materialized"),
        textScenario(key: "textContainsAccented", format: "title CONTAINS[cd] %@", argument: "ech", rawWhere: "ZTITLE LIKE '%ech%'",
                     accented: true, title: "`title CONTAINS[cd] \"ech\"` over 200,000 titles, one word in five accented, materialized"),
        textScenario(key: "textBeginsWith", format: "title BEGINSWITH[c] %@", argument: "tech", rawWhere: "ZTITLE LIKE 'tech%'",
                     accented: false, title: "`title BEGINSWITH[c] \"tech\"` over 200,000 ASCII titles, materialized"),
        textScenario(key: "textEquals", format: "title ==[c] %@", argument: "ECHO RIVER MUSIC", rawWhere: "ZTITLE = 'ECHO RIVER MUSIC' COLLATE NOCASE",
                     accented: false, title: "`title ==[c] \"ECHO RIVER MUSIC\"` over 200,000 ASCII titles, materialized"),
        textScenario(key: "textLike", format: "title LIKE[c] %@", argument: "*echo*", rawWhere: "ZTITLE LIKE '%echo%'",
                     accented: false, title: "`title LIKE[c] \"*echo*\"` over 200,000 ASCII titles, materialized"),
    ]

    static func textScenario(key: String, format: String, argument: String, rawWhere: String, accented: Bool, title: String) -> QueryScenario {
        QueryScenario(key: key, title: title, runs: 7) { fixtures in
            let file = try fixtures.titles(accented: accented)
            let rows = 200_000 / fixtures.divisor
            var matched = 0
            var expected: Int?
            func verify(_ who: String) throws {
                if let expected, !accented { try check(matched == expected, "\(who) matched \(matched), others \(expected)") }
                try check(matched > 0, "\(who) matched nothing")
                expected = matched
                matched = 0
            }

            let coordinator = try ItemStore.coordinator(file)
            var context: ManagedObjectContext?
            let nimbus = QueryCase("Nimbus", rows: rows, prepare: { context = ItemStore.context(coordinator) }, run: {
                let context = context!
                matched = try context.performAndWait { () throws in
                    var request = FetchRequest<ManagedObject>(entityName: "Item")
                    request.predicate = try QueryPredicate(format: format, argument)
                    request.returnsObjectsAsFaults = false
                    return try context.fetch(request).count
                }
            }, verify: { try verify("Nimbus"); context = nil })

            let raw = try RawConnection(file)
            let sql = "SELECT Z_PK, ZCATEGORY, ZSCORE, ZTITLE FROM ZITEM WHERE \(rawWhere)"
            var items: [ItemRow] = []
            let rawCase = QueryCase("raw SQLite C (LIKE / NOCASE)", rows: rows, run: {
                let statement = try raw.prepare(sql)
                defer { sqlite3_finalize(statement) }
                var result: [ItemRow] = []
                while sqlite3_step(statement) == SQLITE_ROW {
                    result.append(ItemRow(id: sqlite3_column_int64(statement, 0), category: String(cString: sqlite3_column_text(statement, 1)),
                                          score: sqlite3_column_int64(statement, 2), title: String(cString: sqlite3_column_text(statement, 3))))
                }
                items = result
                matched = result.count
            }, verify: { try verify("raw C"); items = [] })

            let pool = try DatabasePool(path: file.path)
            let grdb = QueryCase("GRDB (LIKE / NOCASE)", rows: rows, run: {
                items = try pool.read { db in try ItemRow.fetchAll(db, sql: sql) }
                matched = items.count
            }, verify: { try verify("GRDB"); items = [] })
            return [nimbus, rawCase, grdb]
        }
    }
}
