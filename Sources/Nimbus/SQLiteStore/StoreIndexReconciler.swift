import Foundation
import GRDB

/// Brings a store's indexes, R-tree tables and their triggers in line with a model's
/// schema: creates what is missing, drops what the model no longer declares, and
/// re-creates what changed (comparing the SQL `sqlite_master` keeps). New R-trees are
/// filled from the table's rows. Runs when a store is created, after a lightweight
/// migration, and when a store is opened for writing with a model whose indexes differ
/// from the file's (index changes leave the version hash alone, as in Core Data).
///
/// Only objects Nimbus owns are touched: indexes on the model's tables, and `rtree`
/// tables and triggers named `Z_…`.
enum StoreIndexReconciler {
    /// The statements that reconcile the store, in order; empty when it already matches.
    static func plan(_ db: Database, schema: StoreSchema) throws -> [String] {
        var existing: [String: (type: String, table: String, sql: String)] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL") {
            existing[row[1]] = (row[0], row[2], row[3])
        }
        let tables = Set((schema.tables.map(\.name) + schema.joinTables.map(\.name)).filter { existing[$0]?.type == "table" })
        let desiredIndexes = Dictionary(schema.indexes.filter { tables.contains($0.table) }.map { ($0.name, $0.createSQL) },
                                        uniquingKeysWith: { first, _ in first })
        let rTrees = schema.rTrees.filter { tables.contains($0.table) }
        let desiredRTrees = Dictionary(rTrees.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var desiredTriggers: [String: String] = [:]
        for rTree in rTrees {
            for (name, sql) in zip(rTree.triggerNames, rTree.triggerSQL) { desiredTriggers[name] = sql }
        }

        var drops: [String] = []
        var creates: [String] = []
        let ownedTriggerSuffixes = ["_INSERT", "_UPDATE", "_DELETE"]
        for (name, object) in existing.sorted(by: { $0.key < $1.key }) {
            switch object.type {
            case "trigger" where tables.contains(object.table) && name.hasPrefix("Z_") && ownedTriggerSuffixes.contains(where: name.hasSuffix):
                if desiredTriggers[name] != object.sql { drops.append("DROP TRIGGER \(name.quotedDatabaseIdentifier)") }
            case "index" where tables.contains(object.table):
                if desiredIndexes[name] != object.sql { drops.append("DROP INDEX \(name.quotedDatabaseIdentifier)") }
            case "table" where name.hasPrefix("Z_") && object.sql.hasPrefix("CREATE VIRTUAL TABLE") && object.sql.contains("USING rtree("):
                if desiredRTrees[name]?.createSQL != object.sql { drops.append("DROP TABLE \(name.quotedDatabaseIdentifier)") }
            default:
                continue
            }
        }
        for (name, sql) in desiredIndexes.sorted(by: { $0.key < $1.key }) where existing[name]?.sql != sql {
            creates.append(sql)
        }
        for rTree in rTrees where existing[rTree.name]?.sql != rTree.createSQL {
            creates.append(rTree.createSQL)
            creates.append(rTree.populateSQL)
        }
        for (name, sql) in desiredTriggers.sorted(by: { $0.key < $1.key }) where existing[name]?.sql != sql {
            creates.append(sql)
        }
        // Triggers go first (they name the R-trees), then the R-trees and indexes.
        drops.sort { ($0.hasPrefix("DROP TRIGGER") ? 0 : 1) < ($1.hasPrefix("DROP TRIGGER") ? 0 : 1) }
        return drops + creates
    }

    /// Runs ``plan(_:schema:)``'s statements; returns how many ran.
    @discardableResult
    static func apply(_ db: Database, schema: StoreSchema) throws -> Int {
        let statements = try plan(db, schema: schema)
        for sql in statements { try db.execute(sql: sql) }
        return statements.count
    }

    /// The R-trees the schema declares that the file lacks (a read-only store written before
    /// they were declared): fetches then compare columns directly.
    static func missingRTrees(_ db: Database, schema: StoreSchema) throws -> Set<String> {
        guard !schema.rTrees.isEmpty else { return [] }
        let present = try Set(String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        return Set(schema.rTrees.filter { present.contains($0.table) && !present.contains($0.name) }.map(\.name))
    }
}
