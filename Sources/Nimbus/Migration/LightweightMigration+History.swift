import Foundation
import GRDB

extension LightweightMigration {
    /// Carries persistent history across a migration: changes get the new entity numbers and
    /// property bitmaps. Changes of removed entities are dropped, and so are tombstone values
    /// no longer preserved; when that leaves a transaction incomplete (a gap), history is kept
    /// only up to the last complete transaction, so no consumer reads past a gap unknowingly —
    /// except what a registered consumer has not read yet, which is kept (with the changes
    /// of surviving entities whole).
    static func migrateHistory(_ db: Database, from source: ManagedObjectModel, to destination: ManagedObjectModel,
                               mapping: InferredMapping, entityNumbers: [Int: Int]) throws {
        var firstGap: Int64?
        func gap(at transaction: Int64) { firstGap = min(firstGap ?? transaction, transaction) }
        let decoder = JSONDecoder()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let rows = try Row.fetchAll(db, sql: "SELECT Z_PK, ZENTITY, ZTRANSACTIONID, ZCOLUMNS, ZTOMBSTONE FROM ACHANGE")
        for row in rows {
            let key: Int64 = row[0]
            let transaction: Int64 = row[2]
            guard let old = source.entity(number: row[1]), let newNumber = entityNumbers[old.entityNumber],
                  let new = destination.entity(number: newNumber) else {
                try db.execute(sql: "DELETE FROM ACHANGE WHERE Z_PK = ?", arguments: [key])
                gap(at: transaction)
                continue
            }
            let renamed = Dictionary((mapping.properties[new.name] ?? [:]).map { ($0.value, $0.key) }) { a, _ in a }
            var columns: DatabaseValue = .null
            if let bitmap = row[3] as Data? {
                let names = HistoryStore.indexes(in: bitmap).compactMap { $0 < old.properties.count ? old.properties[$0].name : nil }
                columns = HistoryStore.bitmap(names.compactMap { renamed[$0].flatMap { new.propertyIndexes[$0] } }).databaseValue
            }
            var tombstone: DatabaseValue = .null
            if let data = row[4] as Data?, let values = try? decoder.decode([String: PropertyValue].self, from: data) {
                var kept: [String: PropertyValue] = [:]
                for (name, value) in values {
                    if let newName = renamed[name], new.attributesByName[newName]?.preservesValueInHistoryOnDeletion == true {
                        kept[newName] = value
                    } else {
                        gap(at: transaction)
                    }
                }
                if !kept.isEmpty { tombstone = try encoder.encode(kept).databaseValue }
            }
            try db.execute(sql: "UPDATE ACHANGE SET ZENTITY = ?, ZCOLUMNS = ?, ZTOMBSTONE = ? WHERE Z_PK = ?",
                           arguments: [new.entityNumber, columns, tombstone, key])
        }
        if let firstGap {
            // History a registered consumer has not read yet (a sync exporter's unsent edits) is
            // never dropped: only what every consumer has read goes, from the gap on.
            var last = Int64.max
            if try db.tableExists("ANIMBUSHISTORYCONSUMER"),
               let oldest = try Int64.fetchOne(db, sql: "SELECT min(ZTRANSACTION) FROM ANIMBUSHISTORYCONSUMER") {
                last = oldest
            }
            guard firstGap <= last else { return }
            try db.execute(sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID >= ? AND ZTRANSACTIONID <= ?", arguments: [firstGap, last])
            try db.execute(sql: "DELETE FROM ATRANSACTION WHERE Z_PK >= ? AND Z_PK <= ?", arguments: [firstGap, last])
        }
    }
}
