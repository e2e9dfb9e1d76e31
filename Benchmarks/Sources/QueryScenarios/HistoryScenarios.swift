import BenchmarkScenarios
import Foundation
import GRDB
import GRDBSQLite
import Nimbus

/// One `ACHANGE` row as the raw C and GRDB contenders read it.
struct ChangeRow {
    var id: Int64
    var changeType: Int64
    var entity: Int64
    var entityPK: Int64
    var transaction: Int64
    var columns: Data?
    var tombstone: Data?
}

extension QueryScenario {
    /// Inserts 50,000 items with one save into a new store, with and without persistent
    /// history; raw C and GRDB insert the same rows into a table of the same shape and
    /// indexes, one prepared statement in one transaction.
    nonisolated(unsafe) public static let historyOnSave = QueryScenario(
        key: "historyOnSave", title: "insert 50,000 objects, one save: cost of history", runs: 5,
        target: "Nimbus with history within 1.3× of Nimbus without."
    ) { fixtures in
        let scratch = fixtures.scratch
        let rows = 50_000 / fixtures.divisor
        let values = (0..<rows).map { ItemStore.values($0, of: rows) }
        var file: URL?
        var context: ManagedObjectContext?
        func nimbus(history: Bool) -> QueryCase {
            QueryCase(history ? "Nimbus, history on" : "Nimbus, history off", rows: rows, prepare: {
                file = scratch.newFile("insert")
                context = ItemStore.context(try ItemStore.coordinator(file!, history: history))
            }, run: {
                let context = context!
                try context.performAndWait { () throws in
                    for (category, score, title) in values {
                        let object = try context.insertNewObject(forEntityName: "Item")
                        object.setValue(category, forKey: "category")
                        object.setValue(score, forKey: "score")
                        object.setValue(title, forKey: "title")
                        object.setValue(false, forKey: "flag")
                    }
                    try context.save()
                }
            }, verify: {
                context = nil
                let raw = try RawConnection(file!)
                let count = try raw.integer("SELECT count(*) FROM ZITEM")
                let changes = history ? try raw.integer("SELECT count(*) FROM ACHANGE") : 0
                scratch.remove(file!)
                try check(count == rows && changes == (history ? Int64(rows) : 0), "Nimbus inserted \(count) items, \(changes) changes")
            })
        }

        let create = """
            CREATE TABLE item (id INTEGER PRIMARY KEY, category TEXT, score INTEGER, title TEXT, flag INTEGER);
            CREATE INDEX item_score ON item (score);
            CREATE INDEX item_category ON item (category);
            """
        let insert = "INSERT INTO item (category, score, title, flag) VALUES (?, ?, ?, ?)"
        func verifyPlain(_ who: String) throws {
            let raw = try RawConnection(file!)
            let count = try raw.integer("SELECT count(*) FROM item")
            scratch.remove(file!)
            try check(count == rows, "\(who) inserted \(count) rows")
        }
        var raw: RawConnection?
        let rawCase = QueryCase("raw SQLite C", rows: rows, prepare: {
            file = scratch.newFile("raw-insert")
            raw = try RawConnection(file!)
            try raw!.execute(create)
        }, run: {
            let raw = raw!
            let statement = try raw.prepare(insert)
            defer { sqlite3_finalize(statement) }
            try raw.execute("BEGIN")
            for (category, score, title) in values {
                sqlite3_bind_text(statement, 1, category, -1, RawConnection.transient)
                sqlite3_bind_int64(statement, 2, score)
                sqlite3_bind_text(statement, 3, title, -1, RawConnection.transient)
                sqlite3_bind_int(statement, 4, 0)
                guard sqlite3_step(statement) == SQLITE_DONE else { throw raw.error(insert) }
                sqlite3_reset(statement)
            }
            try raw.execute("COMMIT")
        }, verify: { raw = nil; try verifyPlain("raw C") })

        var pool: DatabasePool?
        let grdb = QueryCase("GRDB cached statement", rows: rows, prepare: {
            file = scratch.newFile("grdb-insert")
            pool = try DatabasePool(path: file!.path)
            try pool!.write { db in try db.execute(sql: create) }
        }, run: {
            try pool!.write { db in
                let statement = try db.cachedStatement(sql: insert)
                for (category, score, title) in values {
                    try statement.execute(arguments: [category, score, title, false])
                }
            }
        }, verify: { pool = nil; try verifyPlain("GRDB") })
        return [nimbus(history: false), nimbus(history: true), rawCase, grdb]
    }

    /// Reads the 100,000 history changes after a token: Nimbus's history request (transactions
    /// and changes) vs a range scan of `ACHANGE` on its `ZTRANSACTIONID` index.
    nonisolated(unsafe) public static let historyRead = QueryScenario(
        key: "historyRead", title: "read 100,000 history changes after a token", runs: 7
    ) { fixtures in
        let file = try fixtures.history()
        let token = fixtures.historyToken!
        let rows = 100_000 / fixtures.divisor

        let coordinator = try ItemStore.coordinator(file, history: true)
        var context: ManagedObjectContext?
        var count = 0
        let nimbus = QueryCase("Nimbus fetchHistory(after:)", rows: rows, prepare: { context = ItemStore.context(coordinator) }, run: {
            let context = context!
            let transactions = try context.performAndWait { () throws in
                try context.execute(PersistentHistoryChangeRequest.fetchHistory(after: token)).transactions
            }
            count = transactions.reduce(0) { $0 + ($1.changes?.count ?? 0) }
        }, verify: {
            try check(count == rows, "Nimbus read \(count) changes")
            context = nil
        })

        let sql = "SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS, ZTOMBSTONE FROM ACHANGE WHERE ZTRANSACTIONID > ?"
        let raw = try RawConnection(file)
        var changes: [ChangeRow] = []
        func blob(_ statement: OpaquePointer, _ column: Int32) -> Data? {
            guard let bytes = sqlite3_column_blob(statement, column) else { return nil }
            return Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, column)))
        }
        let rawCase = QueryCase("raw SQLite C range scan", rows: rows, run: {
            let statement = try raw.prepare(sql)
            defer { sqlite3_finalize(statement) }
            sqlite3_bind_int64(statement, 1, token.transactionNumber)
            var result: [ChangeRow] = []
            while sqlite3_step(statement) == SQLITE_ROW {
                result.append(ChangeRow(id: sqlite3_column_int64(statement, 0), changeType: sqlite3_column_int64(statement, 1),
                                        entity: sqlite3_column_int64(statement, 2), entityPK: sqlite3_column_int64(statement, 3),
                                        transaction: sqlite3_column_int64(statement, 4), columns: blob(statement, 5), tombstone: blob(statement, 6)))
            }
            changes = result
        }, verify: {
            try check(changes.count == rows, "raw C read \(changes.count) changes")
            changes = []
        })

        let pool = try DatabasePool(path: file.path)
        let grdb = QueryCase("GRDB rows range scan", rows: rows, run: {
            changes = try pool.read { db in
                try Array(Row.fetchCursor(db, sql: sql, arguments: [token.transactionNumber]).map { row in
                    ChangeRow(id: row[0], changeType: row[1], entity: row[2], entityPK: row[3], transaction: row[4],
                              columns: row[5], tombstone: row[6])
                })
            }
        }, verify: {
            try check(changes.count == rows, "GRDB read \(changes.count) changes")
            changes = []
        })
        return [nimbus, rawCase, grdb]
    }

    /// Every scenario, in report order.
    nonisolated(unsafe) public static let all: [QueryScenario] = [indexedFetch, groupByCount, batchUpdate, batchDelete, historyOnSave, historyRead]
        + boundingBoxes + [searchFTS, searchContains, searchIndexing]
        + graph + text + [singleSaves] + growth
}
