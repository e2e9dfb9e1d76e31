import Foundation
import GRDB

/// Creates a new store's tables: entity tables, join tables, indexes, `Z_PRIMARYKEY`,
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
            if let order = join.orderColumn { columns.append("\(order.quotedDatabaseIdentifier) INTEGER") }
            columns.append("PRIMARY KEY (\(join.firstColumn.quotedDatabaseIdentifier), \(join.secondColumn.quotedDatabaseIdentifier))")
            try db.execute(sql: "CREATE TABLE \(join.name.quotedDatabaseIdentifier) (\(columns.joined(separator: ", "))) WITHOUT ROWID")
        }
        let tables = Set(schema.tables.filter { stored.contains($0.rootEntityName) }.map(\.name)).union(schema.joinTables.map(\.name))
        for index in schema.indexes where tables.contains(index.table) {
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(index.name.quotedDatabaseIdentifier) ON \(index.table.quotedDatabaseIdentifier) (\(index.columns.map(StoreSchema.quotedIndexColumn).joined(separator: ", ")))")
        }
        for entity in model.entities where !entity.uniquenessConstraints.isEmpty && stored.contains(entity.rootEntity.name) {
            let mapping = schema.mapping(for: entity)
            for (n, constraint) in entity.uniquenessConstraints.enumerated() {
                let columns = constraint.compactMap { name -> String? in
                    guard let i = entity.propertyIndexes[name] else { return nil }
                    switch mapping.storage[i] {
                    case let .column(c), let .foreignKey(c, _): return c
                    default: return nil
                    }
                }
                guard !columns.isEmpty else { continue }
                let entities = entity.entityNumbersInHierarchy.map(String.init).joined(separator: ",")
                try db.execute(sql: """
                    CREATE UNIQUE INDEX \("Z_\(entity.name.uppercased())_UNIQUE_\(n)".quotedDatabaseIdentifier) ON \(mapping.table.quotedDatabaseIdentifier) (\(columns.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) \
                    WHERE Z_ENT IN (\(entities))
                    """)
            }
        }
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
