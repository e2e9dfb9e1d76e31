import GRDB

/// How a model's entities map to tables and columns, in Core Data's conventions.
///
/// - One table per inheritance root, `Z<ENTITY>`, with `Z_PK`, `Z_ENT`, `Z_OPT`.
/// - Attributes and to-one relationships as `Z<NAME>` columns (a number is appended on a
///   clash between sibling entities); a to-one whose destination has sub-entities also gets
///   `Z<n>_<NAME>` with the destination's entity number.
/// - One-to-many relationships are stored on the to-one side; ordered ones add
///   `Z_FOK_<INVERSE>` on the destination.
/// - Many-to-many relationships (and to-many relationships without an inverse) use a join
///   table `Z_<n><REL>` with columns `Z_<n><INVERSE>` and `Z_<m><REL>`.
///
/// See `docs/decisions/0002-store-schema.md` for the choices Core Data does not document.
package struct StoreSchema: Sendable {
    /// A table holding one inheritance hierarchy.
    package struct Table: Sendable {
        package var name: String
        package var rootEntityName: String
        /// Column definitions beyond `Z_PK`, `Z_ENT`, `Z_OPT`, in creation order.
        package var columns: [(name: String, type: String)]
    }

    /// Where one property of one entity lives.
    package enum PropertyStorage: Sendable {
        /// A column of the entity's table.
        case column(String)
        /// A to-one relationship: the destination's key column, and for destinations with
        /// sub-entities, a column holding the destination's entity number.
        case foreignKey(column: String, entityColumn: String?)
        /// A one-to-many relationship stored as the inverse's key column on the destination
        /// table (and, when ordered, an order column there).
        case inverseForeignKey(table: String, column: String, entityColumn: String?, orderColumn: String?)
        /// A relationship stored in a join table. `sourceColumn` holds this object's key.
        case joinTable(JoinTable, sourceColumn: String, destinationColumn: String, orderColumn: String?)
        /// Not stored (transient).
        case transient
    }

    /// A join table for a many-to-many relationship.
    package struct JoinTable: Sendable, Hashable {
        package var name: String
        package var firstColumn: String
        package var secondColumn: String
        /// Order of the second object within the first, for ordered relationships.
        package var orderColumn: String?
        /// Order of the first object within the second, when the inverse is ordered too.
        package var inverseOrderColumn: String? = nil

        /// The order columns the table has.
        package var orderColumns: [String] { [orderColumn, inverseOrderColumn].compactMap { $0 } }
    }

    /// An entity's mapping.
    package struct EntityMapping: Sendable {
        package var table: String
        /// By property index of the entity.
        package var storage: [PropertyStorage]
    }

    package var tables: [Table]
    package var joinTables: [JoinTable]
    /// By entity number - 1.
    package var mappings: [EntityMapping]
    /// B-tree indexes to create: foreign keys, `Z_ENT`, uniqueness constraints, binary
    /// fetch indexes (see `StoreSchema+Indexes.swift`).
    package var indexes: [Index]
    /// R-tree fetch indexes: `rtree` virtual tables kept current by triggers.
    package var rTrees: [RTree]

    /// An index column as SQL: the quoted column name, and ` DESC` when the index
    /// declares it descending (``indexes`` keep it as a suffix of the name).
    package static func quotedIndexColumn(_ column: String) -> String {
        column.hasSuffix(" DESC") ? String(column.dropLast(5)).quotedDatabaseIdentifier + " DESC" : column.quotedDatabaseIdentifier
    }

    /// The mapping of an entity.
    package func mapping(for entity: EntityDescription) -> EntityMapping { mappings[entity.entityNumber - 1] }

    /// Builds the schema of a model.
    package init(model: ManagedObjectModel) {
        var tables: [Table] = []
        var tableByRoot: [String: Int] = [:]
        var columnsByEntityProperty: [String: String] = [:]    // "Entity.property" -> column
        var entityColumnByEntityProperty: [String: String] = [:]

        // Columns per root table: every entity of the hierarchy, in entity-number order.
        for root in model.entities where root.superentity == nil {
            var table = Table(name: "Z" + root.name.uppercased(), rootEntityName: root.name, columns: [])
            var used: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]
            var byOwner: [String: String] = [:]   // "DeclaringEntity.property" -> column
            func unique(_ base: String) -> String {
                var name = base
                var n = 1
                while used.contains(name) { name = base + String(n); n += 1 }
                used.insert(name)
                return name
            }
            let hierarchy = model.entities.filter { $0.rootEntity === root }
            for entity in hierarchy {
                for property in entity.properties where !property.isTransient {
                    let owner = Self.declaringEntity(of: property.name, in: entity)
                    let key = "\(owner.name).\(property.name)"
                    if let existing = byOwner[key] {
                        columnsByEntityProperty["\(entity.name).\(property.name)"] = existing
                        if let entityColumn = entityColumnByEntityProperty["\(owner.name).\(property.name)"] {
                            entityColumnByEntityProperty["\(entity.name).\(property.name)"] = entityColumn
                        }
                        continue
                    }
                    switch property {
                    case let .attribute(attribute):
                        let column = unique("Z" + attribute.name.uppercased())
                        table.columns.append((column, attribute.type.sqlColumnType))
                        byOwner[key] = column
                    case let .relationship(relationship) where !relationship.isToMany:
                        let column = unique("Z" + relationship.name.uppercased())
                        table.columns.append((column, "INTEGER"))
                        byOwner[key] = column
                        // As Core Data: only a destination with sub-entities needs the column,
                        // named after the destination's entity number.
                        if let destination = model.entitiesByName[relationship.destinationEntityName],
                           destination.entityNumbersInHierarchy.count > 1 {
                            let entityColumn = unique("Z\(destination.entityNumber)_" + relationship.name.uppercased())
                            table.columns.append((entityColumn, "INTEGER"))
                            entityColumnByEntityProperty[key] = entityColumn
                            entityColumnByEntityProperty["\(entity.name).\(property.name)"] = entityColumn
                        }
                    case .relationship:
                        continue
                    }
                    columnsByEntityProperty["\(entity.name).\(property.name)"] = byOwner[key]
                }
            }
            // Order columns for ordered one-to-many relationships pointing into this table.
            for entity in model.entities {
                for relationship in entity.declaredRelationships where relationship.isToMany && relationship.isOrdered {
                    guard let destination = model.entitiesByName[relationship.destinationEntityName],
                          destination.rootEntity === root,
                          let inverse = relationship.inverseName,
                          destination.property(named: inverse)?.relationship?.isToMany == false else { continue }
                    let column = unique("Z_FOK_" + inverse.uppercased())
                    table.columns.append((column, "INTEGER"))
                    columnsByEntityProperty["fok:\(entity.name).\(relationship.name)"] = column
                }
            }
            tableByRoot[root.name] = tables.count
            tables.append(table)
        }

        // Join tables for many-to-many (and inverse-less to-many) relationships, named as
        // Core Data names them (see `StoreSchema+JoinTables.swift`).
        let (joinTables, joinByRelationship) = Self.derivedJoinTables(model: model)

        // Per-entity mappings.
        var mappings: [EntityMapping] = []
        for entity in model.entities {
            let root = entity.rootEntity
            let table = tables[tableByRoot[root.name]!]
            var storage: [PropertyStorage] = []
            for property in entity.properties {
                let key = "\(entity.name).\(property.name)"
                switch property {
                case _ where property.isTransient:
                    storage.append(.transient)
                case .attribute:
                    storage.append(.column(columnsByEntityProperty[key]!))
                case let .relationship(relationship) where !relationship.isToMany:
                    storage.append(.foreignKey(column: columnsByEntityProperty[key]!, entityColumn: entityColumnByEntityProperty[key]))
                case let .relationship(relationship):
                    let owner = Self.declaringEntity(of: relationship.name, in: entity)
                    if let join = joinByRelationship["\(owner.name).\(relationship.name)"] {
                        storage.append(.joinTable(join.0, sourceColumn: join.source, destinationColumn: join.destination, orderColumn: join.order))
                    } else if let destination = model.entitiesByName[relationship.destinationEntityName],
                              let inverseName = relationship.inverseName {
                        let inverseOwner = Self.declaringEntity(of: inverseName, in: destination)
                        let destinationTable = tables[tableByRoot[destination.rootEntity.name]!].name
                        storage.append(.inverseForeignKey(
                            table: destinationTable,
                            column: columnsByEntityProperty["\(inverseOwner.name).\(inverseName)"] ?? columnsByEntityProperty["\(destination.name).\(inverseName)"]!,
                            entityColumn: entityColumnByEntityProperty["\(inverseOwner.name).\(inverseName)"],
                            orderColumn: columnsByEntityProperty["fok:\(owner.name).\(relationship.name)"]))
                    } else {
                        storage.append(.transient)
                    }
                }
            }
            mappings.append(EntityMapping(table: table.name, storage: storage))
        }

        // Indexes: every foreign key, Z_ENT for hierarchies, join tables' reverse direction.
        var indexes: [Index] = []
        for entity in model.entities {
            let mapping = mappings[entity.entityNumber - 1]
            for (index, property) in entity.properties.enumerated() {
                guard Self.declaringEntity(of: property.name, in: entity) === entity else { continue }
                if case let .foreignKey(column, _) = mapping.storage[index] {
                    indexes.append(Index(name: "\(mapping.table)_\(column)_INDEX", table: mapping.table, columns: [column]))
                }
            }
            if entity.superentity == nil, entity.entityNumbersInHierarchy.count > 1 {
                indexes.append(Index(name: "\(mapping.table)_Z_ENT_INDEX", table: mapping.table, columns: ["Z_ENT"]))
            }
        }
        for join in joinTables {
            indexes.append(Index(name: "\(join.name)_\(join.secondColumn)_INDEX", table: join.name, columns: [join.secondColumn, join.firstColumn]))
        }

        self.tables = tables
        self.joinTables = joinTables
        self.mappings = mappings
        self.indexes = indexes
        self.rTrees = []
        // Declared indexes need the finished mappings (partial predicates compile against them).
        addDeclaredIndexes(model: model)
    }

    /// The entity (itself or an ancestor) that declares a property.
    static func declaringEntity(of property: String, in entity: EntityDescription) -> EntityDescription {
        var current = entity
        while let parent = current.superentity, parent.property(named: property) != nil { current = parent }
        return current
    }
}
