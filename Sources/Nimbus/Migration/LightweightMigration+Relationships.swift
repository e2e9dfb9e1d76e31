import Foundation
import GRDB

extension LightweightMigration {
    /// Carries relationships whose storage changed (a to-one that became to-many or the
    /// reverse, so a foreign key becomes a join table or a join table a foreign key) as the
    /// pairs of related objects: read from the old storage, written into the new one.
    ///
    /// A to-many that becomes to-one is sound only when no object holds more than one
    /// destination; otherwise the migration is refused, naming the relationship.
    static func copyChangedRelationships(_ db: Database, mapping: InferredMapping, oldSchema: StoreSchema,
                                         newSchema: StoreSchema, prefix: String) throws {
        let source = mapping.source, destination = mapping.destination
        for entity in destination.entities {
            guard let oldName = mapping.entities.first(where: { $0.value == entity.name })?.key,
                  let old = source.entitiesByName[oldName] else { continue }
            let newMapping = newSchema.mapping(for: entity)
            // An entity outside the store's configuration has no rows on either side.
            guard try db.tableExists(oldSchema.mapping(for: old).table),
                  try db.tableExists(prefix + newMapping.table) else { continue }
            for (index, property) in entity.properties.enumerated() {
                guard let relationship = property.relationship,
                      StoreSchema.declaringEntity(of: relationship.name, in: entity) === entity,
                      let oldProperty = mapping.properties[entity.name]?[property.name],
                      let oldIndex = old.propertyIndexes[oldProperty],
                      let oldRelationship = old.properties[oldIndex].relationship else { continue }
                let before = oldSchema.mapping(for: old).storage[oldIndex]
                let after = newMapping.storage[index]
                guard !sameKind(before, after) || relationship.isToMany != oldRelationship.isToMany else { continue }
                let pairs = try edges(db, of: old, storage: before, table: oldSchema.mapping(for: old).table)
                guard let target = destination.entitiesByName[relationship.destinationEntityName] else { continue }
                let targetTable = prefix + newSchema.mapping(for: target).table
                try write(db, pairs, into: after, table: prefix + newMapping.table, targetTable: targetTable, prefix: prefix,
                          label: "\(entity.name).\(relationship.name)",
                          inverseLabel: "\(relationship.destinationEntityName).\(relationship.inverseName ?? relationship.name)")
            }
        }
    }

    private static func sameKind(_ a: StoreSchema.PropertyStorage, _ b: StoreSchema.PropertyStorage) -> Bool {
        switch (a, b) {
        case (.foreignKey, .foreignKey), (.inverseForeignKey, .inverseForeignKey), (.joinTable, .joinTable), (.transient, .transient): true
        default: false
        }
    }

    /// (owner key, destination key) for every related pair in the old store.
    private static func edges(_ db: Database, of entity: EntityDescription, storage: StoreSchema.PropertyStorage,
                              table: String) throws -> [(Int64, Int64)] {
        let sql: String
        switch storage {
        case let .foreignKey(column, _):
            sql = "SELECT Z_PK, \(column.quotedDatabaseIdentifier) FROM \(table.quotedDatabaseIdentifier) WHERE Z_ENT = \(entity.entityNumber) AND \(column.quotedDatabaseIdentifier) IS NOT NULL"
        case let .inverseForeignKey(inverseTable, column, _, _):
            sql = "SELECT \(column.quotedDatabaseIdentifier), Z_PK FROM \(inverseTable.quotedDatabaseIdentifier) WHERE \(column.quotedDatabaseIdentifier) IS NOT NULL"
        case let .joinTable(join, sourceColumn, destinationColumn, _):
            sql = "SELECT \(sourceColumn.quotedDatabaseIdentifier), \(destinationColumn.quotedDatabaseIdentifier) FROM \(join.name.quotedDatabaseIdentifier)"
        case .column, .transient:
            return []
        }
        return try Row.fetchAll(db, sql: sql).map { ($0[0], $0[1]) }
    }

    private static func write(_ db: Database, _ pairs: [(Int64, Int64)], into storage: StoreSchema.PropertyStorage,
                              table: String, targetTable: String, prefix: String, label: String, inverseLabel: String) throws {
        switch storage {
        case let .foreignKey(column, entityColumn):
            try requireSingle(pairs.map(\.0), label: label)
            for (owner, target) in pairs {
                try db.execute(sql: "UPDATE \(table.quotedDatabaseIdentifier) SET \(column.quotedDatabaseIdentifier) = ? WHERE Z_PK = ?", arguments: [target, owner])
                if let entityColumn {
                    try db.execute(sql: "UPDATE \(table.quotedDatabaseIdentifier) SET \(entityColumn.quotedDatabaseIdentifier) = (SELECT Z_ENT FROM \(targetTable.quotedDatabaseIdentifier) WHERE Z_PK = ?) WHERE Z_PK = ?",
                                   arguments: [target, owner])
                }
            }
        case let .inverseForeignKey(_, column, entityColumn, _):
            // The key lives on the destination's row: each destination may have one owner.
            try requireSingle(pairs.map(\.1), label: inverseLabel)
            for (owner, target) in pairs {
                try db.execute(sql: "UPDATE \(targetTable.quotedDatabaseIdentifier) SET \(column.quotedDatabaseIdentifier) = ? WHERE Z_PK = ?", arguments: [owner, target])
                if let entityColumn {
                    try db.execute(sql: "UPDATE \(targetTable.quotedDatabaseIdentifier) SET \(entityColumn.quotedDatabaseIdentifier) = (SELECT Z_ENT FROM \(table.quotedDatabaseIdentifier) WHERE Z_PK = ?) WHERE Z_PK = ?",
                                   arguments: [owner, target])
                }
            }
        case let .joinTable(join, sourceColumn, destinationColumn, _):
            for (owner, target) in pairs {
                try db.execute(sql: "INSERT OR IGNORE INTO \((prefix + join.name).quotedDatabaseIdentifier) (\(sourceColumn.quotedDatabaseIdentifier), \(destinationColumn.quotedDatabaseIdentifier)) VALUES (?, ?)",
                               arguments: [owner, target])
            }
        case .column, .transient:
            break
        }
    }

    private static func requireSingle(_ keys: [Int64], label: String) throws {
        var seen: Set<Int64> = []
        for key in keys where !seen.insert(key).inserted {
            let entity = label.split(separator: ".").first.map(String.init) ?? label
            throw NimbusError(.modelMismatch, "\(label) becomes to-one, but \(entity) p\(key) is related to more than one object; migrate with a mapping model that chooses one")
        }
    }
}
