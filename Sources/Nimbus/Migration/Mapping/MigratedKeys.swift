import Foundation
import GRDB

/// Where each object of a store migrated by a mapping model came from, for the layers above
/// the object graph whose tables key rows by entity and primary key (sync metadata).
///
/// A mapping migration builds a new file, in which every object gets a new primary key. The
/// ``MigrationManager`` copies those layers' tables (``carriedTablePrefix``) into the new file
/// as they are, and writes `ANIMBUSMIGRATEDKEYS`: one row per object of the new store, with
/// the object it was made from (none for an object the mapping added) and the properties whose
/// values the migration changed, or that the source's history holds as changed but unread by a
/// registered consumer. The layer that owns the carried tables rewrites its keys from it when
/// the store next opens, then drops it. Objects of the source that no row names were removed by
/// the migration.
///
/// Several mapping stages in a row compose: each new table maps the first source's objects.
package enum MigratedKeys {
    /// The table's name.
    package static let table = "ANIMBUSMIGRATEDKEYS"
    /// Tables whose names start so are copied into a mapping migration's new store.
    static let carriedTablePrefix = "ANIMBUSCLOUD"
    /// In ``Entry/changed``: every property (a new object, or one inserted in unread history).
    package static let everyProperty = "*"

    /// One object of the migrated store.
    package struct Entry: Sendable, Hashable {
        /// The entity and primary key of the object it was made from (nil: added by the mapping).
        package var oldEntity: String?
        package var oldPrimaryKey: Int64?
        /// The object's entity and primary key in the migrated store.
        package var newEntity: String
        package var newPrimaryKey: Int64
        /// Properties changed by the migration or by history no consumer has read.
        package var changed: Set<String>
    }

    /// The rows of `ANIMBUSMIGRATEDKEYS`, or nil when the store has none.
    package static func read(_ db: Database) throws -> [Entry]? {
        guard try db.tableExists(table) else { return nil }
        let decoder = JSONDecoder()
        return try Row.fetchAll(db, sql: "SELECT ZOLDENTITY, ZOLDPK, ZNEWENTITY, ZNEWPK, ZCHANGED FROM \(table)").map { row in
            Entry(oldEntity: row[0], oldPrimaryKey: row[1], newEntity: row[2], newPrimaryKey: row[3],
                  changed: try decoder.decode(Set<String>.self, from: Data((row[4] as String).utf8)))
        }
    }

    /// Removes the table once its rows are applied.
    package static func drop(_ db: Database) throws {
        try db.execute(sql: "DROP TABLE IF EXISTS \(table)")
    }

    static func write(_ entries: [Entry], _ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE \(table) (ZOLDENTITY TEXT, ZOLDPK INTEGER, ZNEWENTITY TEXT NOT NULL, ZNEWPK INTEGER NOT NULL,
                ZCHANGED TEXT NOT NULL, PRIMARY KEY (ZNEWENTITY, ZNEWPK))
            """)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let insert = try db.makeStatement(sql: "INSERT INTO \(table) (ZOLDENTITY, ZOLDPK, ZNEWENTITY, ZNEWPK, ZCHANGED) VALUES (?, ?, ?, ?, ?)")
        for entry in entries {
            try insert.execute(arguments: [entry.oldEntity, entry.oldPrimaryKey, entry.newEntity, entry.newPrimaryKey,
                                           String(decoding: try encoder.encode(entry.changed.sorted()), as: UTF8.self)])
        }
    }
}
