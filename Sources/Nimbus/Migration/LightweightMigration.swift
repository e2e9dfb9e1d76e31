import Foundation
import GRDB

/// Migrates a store in place, in one SQLite transaction, from the model it was written
/// with to a new model, by an ``InferredMapping``. Rows keep their primary keys; entity
/// numbers, columns, join tables, `Z_PRIMARYKEY`, metadata and the model cache are rewritten;
/// persistent history follows (see ``migrateHistory``).
enum LightweightMigration {
    static func migrate(_ db: Database, from source: ManagedObjectModel, to destination: ManagedObjectModel,
                        identifier: String, description: PersistentStoreDescription) throws {
        let mapping = try InferredMapping(from: source, to: destination)
        let oldSchema = source.schema
        let newSchema = destination.schema

        // Entity tables: build each new root table from the old rows of its entities.
        var entityNumbers: [Int: Int] = [:]   // old Z_ENT -> new Z_ENT
        for (oldName, newName) in mapping.entities {
            entityNumbers[source.entitiesByName[oldName]!.entityNumber] = destination.entitiesByName[newName]!.entityNumber
        }
        // A store bound to a configuration holds that configuration's entities only: the new
        // tables are those of the new configuration, the old rows those whose tables exist.
        let configuration = try storeConfiguration(db, description: description, source: source)
        let kept = Set(destination.entities(forConfiguration: configuration).map { $0.rootEntity.name })
        for table in newSchema.tables where kept.contains(table.rootEntityName) {
            var columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"] + table.columns.map { "\($0.name.quotedDatabaseIdentifier) \($0.type)" }
            try db.execute(sql: "CREATE TABLE \(("NIMBUS_MIGRATING_" + table.name).quotedDatabaseIdentifier) (\(columns.joined(separator: ", ")))")
            columns = []
            let hierarchy = destination.entities.filter { $0.rootEntity.name == table.rootEntityName }
            for entity in hierarchy {
                guard let oldName = mapping.entities.first(where: { $0.value == entity.name })?.key,
                      let old = source.entitiesByName[oldName] else { continue }
                let oldTable = oldSchema.mapping(for: old).table
                guard try db.tableExists(oldTable) else { continue }
                var targets = ["Z_PK", "Z_ENT", "Z_OPT"]
                var values = ["Z_PK", "\(entity.entityNumber)", "Z_OPT"]
                let newMapping = newSchema.mapping(for: entity)
                let oldMapping = oldSchema.mapping(for: old)
                for (index, property) in entity.properties.enumerated() {
                    let oldProperty = mapping.properties[entity.name]?[property.name]
                    let oldIndex = oldProperty.flatMap { old.propertyIndexes[$0] }
                    switch (newMapping.storage[index], oldIndex.map { oldMapping.storage[$0] }) {
                    case let (.column(column), .column(oldColumn)?):
                        if !targets.contains(column) {
                            try checkExternalValues(db, table: oldTable, column: oldColumn, entity: old,
                                                    old: oldIndex.flatMap { old.properties[$0].attribute }, new: property.attribute)
                            targets.append(column)
                            values.append(convertedValue(oldColumn.quotedDatabaseIdentifier, from: oldIndex.flatMap { old.properties[$0].attribute },
                                                         to: property.attribute))
                        }
                    case let (.column(column), nil):
                        if let value = property.attribute?.defaultValue, !targets.contains(column) {
                            targets.append(column); values.append(sqlLiteral(value.databaseValue))
                        }
                    case let (.foreignKey(column, entityColumn), .foreignKey(oldColumn, oldEntityColumn)?):
                        if !targets.contains(column) { targets.append(column); values.append(oldColumn.quotedDatabaseIdentifier) }
                        if let entityColumn, !targets.contains(entityColumn) {
                            targets.append(entityColumn)
                            values.append(oldEntityColumn.map { "CASE \($0.quotedDatabaseIdentifier) " + entityNumbers.map { "WHEN \($0.key) THEN \($0.value)" }.joined(separator: " ") + " END" } ?? "NULL")
                        }
                    default:
                        continue
                    }
                }
                // Ordered one-to-many positions live on this table too.
                for (column, _) in table.columns where column.hasPrefix("Z_FOK_") && !targets.contains(column) {
                    if oldSchema.tables.first(where: { $0.name == oldTable })?.columns.contains(where: { $0.name == column }) == true {
                        targets.append(column); values.append(column.quotedDatabaseIdentifier)
                    }
                }
                try db.execute(sql: """
                    INSERT INTO \(("NIMBUS_MIGRATING_" + table.name).quotedDatabaseIdentifier) (\(targets.map(\.quotedDatabaseIdentifier).joined(separator: ", ")))
                    SELECT \(values.joined(separator: ", ")) FROM \(oldTable.quotedDatabaseIdentifier) WHERE Z_ENT = \(old.entityNumber)
                    """)
                let added = Set(entity.properties.map(\.name)).subtracting((mapping.properties[entity.name] ?? [:]).keys)
                try checkRequiredValues(db, table: "NIMBUS_MIGRATING_" + table.name, entity: entity, mapping: newMapping, added: added)
            }
        }
        // Join tables: copy rows of surviving many-to-many relationships.
        var copiedJoins: [(old: String, new: String, first: String, second: String, oldFirst: String, oldSecond: String)] = []
        for entity in destination.entities {
            guard let oldName = mapping.entities.first(where: { $0.value == entity.name })?.key, let old = source.entitiesByName[oldName] else { continue }
            for (index, storage) in newSchema.mapping(for: entity).storage.enumerated() {
                guard case let .joinTable(join, sourceColumn, _, _) = storage, sourceColumn == join.firstColumn,
                      let oldProperty = mapping.properties[entity.name]?[entity.properties[index].name],
                      let oldIndex = old.propertyIndexes[oldProperty],
                      case let .joinTable(oldJoin, oldSource, oldDestination, _) = oldSchema.mapping(for: old).storage[oldIndex] else { continue }
                copiedJoins.append((oldJoin.name, join.name, join.firstColumn, join.secondColumn, oldSource, oldDestination))
            }
        }
        for join in newSchema.joinTables {
            var columns = ["\(join.firstColumn.quotedDatabaseIdentifier) INTEGER", "\(join.secondColumn.quotedDatabaseIdentifier) INTEGER"]
            for order in join.orderColumns { columns.append("\(order.quotedDatabaseIdentifier) INTEGER") }
            columns.append("PRIMARY KEY (\(join.firstColumn.quotedDatabaseIdentifier), \(join.secondColumn.quotedDatabaseIdentifier))")
            try db.execute(sql: "CREATE TABLE \(("NIMBUS_MIGRATING_" + join.name).quotedDatabaseIdentifier) (\(columns.joined(separator: ", "))) WITHOUT ROWID")
        }
        try copyChangedRelationships(db, mapping: mapping, oldSchema: oldSchema, newSchema: newSchema, prefix: "NIMBUS_MIGRATING_")
        for copy in copiedJoins {
            try db.execute(sql: "INSERT OR IGNORE INTO \(("NIMBUS_MIGRATING_" + copy.new).quotedDatabaseIdentifier) (\(copy.first.quotedDatabaseIdentifier), \(copy.second.quotedDatabaseIdentifier)) SELECT \(copy.oldFirst.quotedDatabaseIdentifier), \(copy.oldSecond.quotedDatabaseIdentifier) FROM \(copy.old.quotedDatabaseIdentifier)")
        }
        // Swap tables. R-trees go too: the new model's are rebuilt from the new rows below.
        for rTree in oldSchema.rTrees where try db.tableExists(rTree.name) {
            try db.execute(sql: "DROP TABLE \(rTree.name.quotedDatabaseIdentifier)")
        }
        for table in oldSchema.tables.map(\.name) + oldSchema.joinTables.map(\.name) where try db.tableExists(table) {
            try db.execute(sql: "DROP TABLE \(table.quotedDatabaseIdentifier)")
        }
        for table in newSchema.tables.filter({ kept.contains($0.rootEntityName) }).map(\.name) + newSchema.joinTables.map(\.name) {
            try db.execute(sql: "ALTER TABLE \(("NIMBUS_MIGRATING_" + table).quotedDatabaseIdentifier) RENAME TO \(table.quotedDatabaseIdentifier)")
        }
        // Indexes (uniqueness and fetch indexes included), R-trees and their triggers.
        try StoreIndexReconciler.apply(db, schema: newSchema)
        // Keys: each root keeps the highest key its rows had.
        var maxima: [String: Int64] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT < 16000") { maxima[row[0]] = row[1] }
        try db.execute(sql: "DELETE FROM Z_PRIMARYKEY WHERE Z_ENT < 16000")
        for entity in destination.entities {
            let oldRoot = mapping.entities.first { $0.value == entity.rootEntity.name }?.key
            let maximum = entity.superentity == nil ? (oldRoot.flatMap { maxima[$0] } ?? 0) : 0
            try db.execute(sql: "INSERT INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)",
                           arguments: [entity.entityNumber, entity.name, entity.superentity?.entityNumber ?? 0, maximum])
        }
        if try HistoryStore.isPrepared(db) {
            try migrateHistory(db, from: source, to: destination, mapping: mapping, entityNumbers: entityNumbers)
        }
        var metadata = StoreMetadata(identifier: identifier, model: destination, configuration: configuration)
        if let old = try StoreMetadata.read(db), old.dictionary[HistoryStore.metadataKey] as? Bool == true {
            metadata.dictionary[HistoryStore.metadataKey] = true
        }
        try metadata.write(db)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try db.execute(sql: "DELETE FROM Z_MODELCACHE")
        try db.execute(sql: "INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", arguments: [try encoder.encode(destination)])
    }

    /// The configuration the store is bound to: the description's, else the one the store
    /// records or whose entities it holds (see ``StoreInspector/storedConfiguration(model:path:)``).
    private static func storeConfiguration(_ db: Database, description: PersistentStoreDescription,
                                           source: ManagedObjectModel) throws -> String? {
        if let configuration = description.configuration { return configuration }
        guard let metadata = try StoreMetadata.read(db) else { return nil }
        return StoreInspector(identifier: metadata.identifier, metadata: metadata, modelCache: nil)
            .storedConfiguration(model: source, path: description.url?.path ?? "")
    }

    static func sqlLiteral(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: "NULL"
        case let .int64(v): String(v)
        case let .double(v): String(v)
        case let .string(v): "'" + v.replacingOccurrences(of: "'", with: "''") + "'"
        case let .blob(v): "X'" + v.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
}
