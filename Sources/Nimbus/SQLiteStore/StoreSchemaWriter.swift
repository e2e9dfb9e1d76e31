import Foundation
import GRDB

/// Creates a new store's tables: entity tables, join tables, indexes and R-trees, `Z_PRIMARYKEY`,
/// `Z_METADATA` and `Z_MODELCACHE` (the model as JSON, so tools open the store alone).
enum StoreSchemaWriter {
    static func create(_ db: Database, model: ManagedObjectModel, description: PersistentStoreDescription, identifier: String) throws {
        let schema = model.schema
        let stored = Set(model.entities(forConfiguration: description.configuration).map { $0.rootEntity.name })
        for table in schema.tables where stored.contains(table.rootEntityName) {
            var columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"]
            columns += table.columns.map { "\($0.name.quotedDatabaseIdentifier) \($0.type)" }
            try db.execute(sql: "CREATE TABLE \(table.name.quotedDatabaseIdentifier) (\(columns.joined(separator: ", ")))")
        }
        for join in schema.joinTables {
            var columns = ["\(join.firstColumn.quotedDatabaseIdentifier) INTEGER", "\(join.secondColumn.quotedDatabaseIdentifier) INTEGER"]
            for order in join.orderColumns { columns.append("\(order.quotedDatabaseIdentifier) INTEGER") }
            columns.append("PRIMARY KEY (\(join.firstColumn.quotedDatabaseIdentifier), \(join.secondColumn.quotedDatabaseIdentifier))")
            try db.execute(sql: "CREATE TABLE \(join.name.quotedDatabaseIdentifier) (\(columns.joined(separator: ", "))) WITHOUT ROWID")
        }
        // Indexes (foreign keys, uniqueness, fetch indexes) and R-trees with their triggers.
        try StoreIndexReconciler.apply(db, schema: schema)
        try db.execute(sql: "CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        for entity in model.entities {
            try db.execute(sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, 0)",
                           arguments: [entity.entityNumber, entity.name, entity.superentity?.entityNumber ?? 0])
        }
        try db.execute(sql: "CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        try StoreMetadata(identifier: identifier, model: model, configuration: description.configuration).write(db)
        try db.execute(sql: "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try db.execute(sql: "INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", arguments: [try encoder.encode(model)])
    }
}
