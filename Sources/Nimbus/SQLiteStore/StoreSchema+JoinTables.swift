extension StoreSchema {
    /// Where one side of a many-to-many relationship is stored: its join table, the column
    /// holding this side's key, the column holding the other side's, and the order column
    /// of this side's ordered relationship.
    typealias JoinSide = (JoinTable, source: String, destination: String, order: String?)

    /// The join tables of a model, named as Apple's Core Data names them (measured on stores
    /// it wrote; decision 0120):
    ///
    /// - The table is `Z_<n><REL>`, `n` the number of the entity declaring the owning side
    ///   `REL`: the side whose entity has the lower number, the ordered side when only one
    ///   is ordered, and for a relationship between an entity and itself the side whose
    ///   name sorts last.
    /// - Each side's column holds the keys of its own entity and is named after the entity's
    ///   number and the inverse: `Z_<n><INVERSE>` for the owner, `Z_<m><REL>` for the other.
    ///   Names are unique across all join tables: taking entities in number order and their
    ///   relationships in name order, a name already taken gets `1` (then `2`, …).
    /// - An ordered side adds `Z_FOK_` + the other side's column name without `Z_`: the
    ///   position of that object within this side's relationship.
    static func derivedJoinTables(model: ManagedObjectModel) -> ([JoinTable], [String: JoinSide]) {
        struct Pair {
            var owner: (entity: EntityDescription, relationship: RelationshipDescription)
            var other: (entity: EntityDescription, relationship: RelationshipDescription)?
        }
        let entities = model.entities.sorted { $0.entityNumber < $1.entityNumber }
        var pairs: [Pair] = []
        var pairOf: [String: Int] = [:]   // "Entity.relationship" -> pair
        for entity in entities {
            for relationship in entity.declaredRelationships.sorted(by: { $0.name < $1.name })
            where relationship.isToMany && !relationship.isTransient {
                let inverse = entity.inverse(of: relationship)
                if let inverse, !inverse.isToMany { continue }   // stored as the inverse's foreign key
                let key = "\(entity.name).\(relationship.name)"
                if pairOf[key] != nil { continue }
                guard let destination = model.entitiesByName[relationship.destinationEntityName] else { continue }
                var pair = Pair(owner: (entity, relationship), other: nil)
                if let inverse {
                    let declaring = declaringEntity(of: inverse.name, in: destination)
                    if let declared = declaring.declaredRelationships.first(where: { $0.name == inverse.name }) {
                        pair.other = (declaring, declared)
                    }
                }
                if let other = pair.other, other.relationship.name != relationship.name || other.entity !== entity {
                    let ownerOrdered = relationship.isOrdered, otherOrdered = other.relationship.isOrdered
                    let otherFirst: Bool
                    if ownerOrdered != otherOrdered {
                        otherFirst = otherOrdered
                    } else if other.entity === entity {
                        otherFirst = other.relationship.name > relationship.name
                    } else {
                        otherFirst = other.entity.entityNumber < entity.entityNumber
                    }
                    if otherFirst { pair = Pair(owner: other, other: pair.owner) }
                }
                pairOf["\(pair.owner.entity.name).\(pair.owner.relationship.name)"] = pairs.count
                if let other = pair.other { pairOf["\(other.entity.name).\(other.relationship.name)"] = pairs.count }
                pairs.append(pair)
            }
        }

        // Column names: each side names the column holding its own entity's keys, claimed
        // in entity-number then relationship-name order.
        var taken: Set<String> = []
        var columnOf: [String: String] = [:]   // "Entity.relationship" -> its source column
        func claim(_ base: String) -> String {
            var name = base
            var n = 1
            while !taken.insert(name).inserted { name = base + String(n); n += 1 }
            return name
        }
        for entity in entities {
            for relationship in entity.declaredRelationships.sorted(by: { $0.name < $1.name }) {
                let key = "\(entity.name).\(relationship.name)"
                guard let index = pairOf[key] else { continue }
                let pair = pairs[index]
                let isOwner = pair.owner.entity === entity && pair.owner.relationship.name == relationship.name
                let ownInverse = pair.other.map { $0.relationship.name } ?? entity.name
                if isOwner {
                    columnOf[key] = claim("Z_\(entity.entityNumber)" + ownInverse.uppercased())
                    if pair.other.map({ $0.entity === entity && $0.relationship.name == relationship.name }) == true {
                        columnOf[key + "#other"] = claim("Z_\(entity.entityNumber)" + relationship.name.uppercased())
                    }
                } else {
                    columnOf[key] = claim("Z_\(entity.entityNumber)" + pair.owner.relationship.name.uppercased())
                }
            }
        }
        // An inverse-less relationship's destination column.
        for (index, pair) in pairs.enumerated() where pair.other == nil {
            let destination = model.entitiesByName[pair.owner.relationship.destinationEntityName]!
            columnOf["#\(index)"] = claim("Z_\(destination.entityNumber)" + pair.owner.relationship.name.uppercased())
        }

        var tables: [JoinTable] = []
        var sides: [String: JoinSide] = [:]
        for (index, pair) in pairs.enumerated() {
            let ownerKey = "\(pair.owner.entity.name).\(pair.owner.relationship.name)"
            let first = columnOf[ownerKey]!
            let second: String
            if let other = pair.other {
                let otherKey = "\(other.entity.name).\(other.relationship.name)"
                second = otherKey == ownerKey ? columnOf[ownerKey + "#other"]! : columnOf[otherKey]!
            } else {
                second = columnOf["#\(index)"]!
            }
            func fok(_ column: String) -> String { "Z_FOK_" + column.dropFirst(2) }
            var join = JoinTable(name: "Z_\(pair.owner.entity.entityNumber)" + pair.owner.relationship.name.uppercased(),
                                 firstColumn: first, secondColumn: second,
                                 orderColumn: pair.owner.relationship.isOrdered ? fok(second) : nil)
            if let other = pair.other, other.relationship.isOrdered,
               !(other.entity === pair.owner.entity && other.relationship.name == pair.owner.relationship.name) {
                join.inverseOrderColumn = fok(first)
            }
            tables.append(join)
            sides[ownerKey] = (join, first, second, join.orderColumn)
            if let other = pair.other {
                let otherKey = "\(other.entity.name).\(other.relationship.name)"
                if otherKey != ownerKey { sides[otherKey] = (join, second, first, join.inverseOrderColumn) }
            }
        }
        return (tables, sides)
    }
}
