import BenchmarkScenarios
import Foundation
import GRDB
import GRDBSQLite
import Nimbus

/// Batch update and batch delete of the 100,000 items with `score < 100,000` among 200,000,
/// each run on a fresh copy of the same checkpointed store (copied in `prepare`, not timed).
/// Nimbus opens its coordinator in `prepare` too.
extension QueryScenario {
    /// Sets up a per-run copy of the batch fixture and removes it after the run.
    final class Copies {
        let fixtures: QueryFixtures
        let source: URL
        var file: URL?
        init(_ fixtures: QueryFixtures) throws {
            self.fixtures = fixtures
            source = try fixtures.batch()
        }
        func next() throws -> URL {
            let file = try fixtures.scratch.copy(source, as: "batch-copy")
            self.file = file
            return file
        }
        /// A count on the current copy, then removes it.
        func count(_ sql: String) throws -> Int64 {
            let raw = try RawConnection(file!)
            let count = try raw.integer(sql)
            fixtures.scratch.remove(file!)
            return count
        }
    }

    nonisolated(unsafe) public static let batchUpdate = QueryScenario(
        key: "batchUpdate", title: "batch update of 100,000 rows (of 200,000)", runs: 5,
        target: "Nimbus batch within 1.2× of one raw SQL UPDATE; at least 10× faster than fetch-modify-save."
    ) { fixtures in
        let copies = try Copies(fixtures)
        let changed = 100_000 / fixtures.divisor
        let limit = Int64(changed)
        var context: ManagedObjectContext?
        var count = 0
        func verify(_ who: String) throws {
            context = nil
            try check(count == changed, "\(who) updated \(count) rows")
            let flagged = try copies.count("SELECT count(*) FROM ZITEM WHERE ZFLAG = 1 AND ZTITLE = 'updated'")
            try check(flagged == changed, "\(who): \(flagged) rows are updated, not \(changed)")
        }

        let batch = QueryCase("Nimbus BatchUpdateRequest", rows: changed, prepare: {
            context = ItemStore.context(try ItemStore.coordinator(try copies.next()))
        }, run: {
            let context = context!
            count = try context.performAndWait { () throws in
                var request = BatchUpdateRequest(entityName: "Item")
                request.predicate = try QueryPredicate(format: "score < %@", limit)
                request.propertiesToUpdate = ["flag": true, "title": "updated"]
                request.resultType = .count
                return try context.execute(request).count
            }
        }, verify: { try verify("Nimbus batch") })

        var raw: RawConnection?
        let sql = "UPDATE ZITEM SET Z_OPT = Z_OPT + 1, ZFLAG = ?, ZTITLE = ? WHERE ZSCORE < ?"
        let rawCase = QueryCase("raw SQL UPDATE (C)", rows: changed, prepare: { raw = try RawConnection(try copies.next()) }, run: {
            let raw = raw!
            let statement = try raw.prepare(sql)
            defer { sqlite3_finalize(statement) }
            sqlite3_bind_int(statement, 1, 1)
            sqlite3_bind_text(statement, 2, "updated", -1, RawConnection.transient)
            sqlite3_bind_int64(statement, 3, limit)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw raw.error(sql) }
            count = raw.changes
        }, verify: { raw = nil; try verify("raw C") })

        // The same UPDATE visiting rows in primary-key order instead of score-index order.
        let ordered = "UPDATE ZITEM SET Z_OPT = Z_OPT + 1, ZFLAG = ?, ZTITLE = ? WHERE Z_PK IN (SELECT Z_PK FROM ZITEM WHERE ZSCORE < ? ORDER BY Z_PK)"
        let rawOrdered = QueryCase("raw SQL UPDATE … Z_PK IN (…) (C)", rows: changed, prepare: { raw = try RawConnection(try copies.next()) }, run: {
            let raw = raw!
            let statement = try raw.prepare(ordered)
            defer { sqlite3_finalize(statement) }
            sqlite3_bind_int(statement, 1, 1)
            sqlite3_bind_text(statement, 2, "updated", -1, RawConnection.transient)
            sqlite3_bind_int64(statement, 3, limit)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw raw.error(ordered) }
            count = raw.changes
        }, verify: { raw = nil; try verify("raw C, rowid order") })

        var pool: DatabasePool?
        let grdb = QueryCase("GRDB updateAll", rows: changed, prepare: { pool = try DatabasePool(path: try copies.next().path) }, run: {
            count = try pool!.write { db in
                try Table("ZITEM").filter(Column("ZSCORE") < limit)
                    .updateAll(db, Column("Z_OPT").set(to: Column("Z_OPT") + 1), Column("ZFLAG").set(to: true), Column("ZTITLE").set(to: "updated"))
            }
        }, verify: { pool = nil; try verify("GRDB") })

        let manual = QueryCase("Nimbus fetch-modify-save", rows: changed, prepare: {
            context = ItemStore.context(try ItemStore.coordinator(try copies.next()))
        }, run: {
            let context = context!
            count = try context.performAndWait { () throws in
                var request = FetchRequest<ManagedObject>(entityName: "Item")
                request.predicate = try QueryPredicate(format: "score < %@", limit)
                request.returnsObjectsAsFaults = false
                let objects = try context.fetch(request)
                for object in objects {
                    object.setValue(true, forKey: "flag")
                    object.setValue("updated", forKey: "title")
                }
                try context.save()
                return objects.count
            }
        }, verify: { try verify("Nimbus fetch-modify-save") })
        return [batch, rawCase, rawOrdered, grdb, manual]
    }

    nonisolated(unsafe) public static let batchDelete = QueryScenario(
        key: "batchDelete", title: "batch delete of 100,000 rows (of 200,000)", runs: 5,
        target: "Nimbus batch within 1.2× of one raw SQL DELETE; at least 10× faster than fetch-delete-save."
    ) { fixtures in
        let copies = try Copies(fixtures)
        let changed = 100_000 / fixtures.divisor
        let limit = Int64(changed)
        var context: ManagedObjectContext?
        var count = 0
        func verify(_ who: String) throws {
            context = nil
            try check(count == changed, "\(who) deleted \(count) rows")
            let left = try copies.count("SELECT count(*) FROM ZITEM")
            try check(left == Int64(changed), "\(who): \(left) rows are left, not \(changed)")
        }

        let batch = QueryCase("Nimbus BatchDeleteRequest", rows: changed, prepare: {
            context = ItemStore.context(try ItemStore.coordinator(try copies.next()))
        }, run: {
            let context = context!
            count = try context.performAndWait { () throws in
                var fetch = FetchRequest<ManagedObject>(entityName: "Item")
                fetch.predicate = try QueryPredicate(format: "score < %@", limit)
                var request = BatchDeleteRequest(fetchRequest: fetch)
                request.resultType = .count
                return try context.execute(request).count
            }
        }, verify: { try verify("Nimbus batch") })

        var raw: RawConnection?
        let sql = "DELETE FROM ZITEM WHERE ZSCORE < ?"
        let rawCase = QueryCase("raw SQL DELETE (C)", rows: changed, prepare: { raw = try RawConnection(try copies.next()) }, run: {
            let raw = raw!
            let statement = try raw.prepare(sql)
            defer { sqlite3_finalize(statement) }
            sqlite3_bind_int64(statement, 1, limit)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw raw.error(sql) }
            count = raw.changes
        }, verify: { raw = nil; try verify("raw C") })

        // The same DELETE visiting rows in primary-key order instead of score-index order.
        let ordered = "DELETE FROM ZITEM WHERE Z_PK IN (SELECT Z_PK FROM ZITEM WHERE ZSCORE < ? ORDER BY Z_PK)"
        let rawOrdered = QueryCase("raw SQL DELETE … Z_PK IN (…) (C)", rows: changed, prepare: { raw = try RawConnection(try copies.next()) }, run: {
            let raw = raw!
            let statement = try raw.prepare(ordered)
            defer { sqlite3_finalize(statement) }
            sqlite3_bind_int64(statement, 1, limit)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw raw.error(ordered) }
            count = raw.changes
        }, verify: { raw = nil; try verify("raw C, rowid order") })

        var pool: DatabasePool?
        let grdb = QueryCase("GRDB deleteAll", rows: changed, prepare: { pool = try DatabasePool(path: try copies.next().path) }, run: {
            count = try pool!.write { db in try Table("ZITEM").filter(Column("ZSCORE") < limit).deleteAll(db) }
        }, verify: { pool = nil; try verify("GRDB") })

        let manual = QueryCase("Nimbus fetch-delete-save", rows: changed, prepare: {
            context = ItemStore.context(try ItemStore.coordinator(try copies.next()))
        }, run: {
            let context = context!
            count = try context.performAndWait { () throws in
                var request = FetchRequest<ManagedObject>(entityName: "Item")
                request.predicate = try QueryPredicate(format: "score < %@", limit)
                let objects = try context.fetch(request)
                for object in objects { context.delete(object) }
                try context.save()
                return objects.count
            }
        }, verify: { try verify("Nimbus fetch-delete-save") })
        return [batch, rawCase, rawOrdered, grdb, manual]
    }
}
