import Crypto
import Foundation

/// Resolves a model's entities: inheritance, entity numbers, inherited properties,
/// relationship destinations and inverses, version hashes.
enum ModelResolver {
    static func resolve(_ entities: [EntityDescription], byName: [String: EntityDescription], problems: inout [String]) {
        // Inheritance.
        for entity in entities {
            guard let parentName = entity.superentityName else { continue }
            guard let parent = byName[parentName] else {
                problems.append("entity \(entity.name) has unknown parent \(parentName)")
                continue
            }
            entity.superentity = parent
            parent.subentityNames.append(entity.name)
        }
        for entity in entities {
            var seen: Set<String> = [entity.name]
            var current = entity.superentity
            while let ancestor = current {
                if !seen.insert(ancestor.name).inserted {
                    problems.append("entity \(entity.name) inherits from itself")
                    entity.superentity?.subentityNames.removeAll { $0 == entity.name }
                    entity.superentity = nil
                    break
                }
                current = ancestor.superentity
            }
        }
        // Broken links were cut above, so the rest resolves and reports its own problems too:
        // a model is refused with every problem listed, not the first kind only.
        for entity in entities { entity.subentityNames.sort() }

        // Entity numbers: alphabetical, each hierarchy depth-first.
        var next = 1
        func number(_ entity: EntityDescription) {
            entity.entityNumber = next
            next += 1
            for child in entity.subentityNames.compactMap({ byName[$0] }) { number(child) }
        }
        for root in entities.filter({ $0.superentity == nil }).sorted(by: { $0.name < $1.name }) { number(root) }
        for entity in entities {
            entity.rootEntityNumber = entity.rootEntity.entityNumber
            entity.entityNumbersInHierarchy = hierarchy(of: entity, byName: byName).map(\.entityNumber)
        }

        // Properties, inherited ones first resolved.
        for entity in entities {
            var all: [String: PropertyDescription] = [:]
            var chain: [EntityDescription] = []
            var current: EntityDescription? = entity
            while let e = current { chain.insert(e, at: 0); current = e.superentity }
            for e in chain {
                let declared = e.declaredAttributes.map(PropertyDescription.attribute) + e.declaredRelationships.map(PropertyDescription.relationship)
                for property in declared {
                    if property.name.isEmpty { problems.append("entity \(e.name) has a property with an empty name") }
                    if all.updateValue(property, forKey: property.name) != nil, e === entity {
                        problems.append("property \(entity.name).\(property.name) is declared twice or shadows an inherited one")
                    }
                }
            }
            entity.properties = all.values.sorted { $0.name < $1.name }
            entity.propertyIndexes = Dictionary(uniqueKeysWithValues: entity.properties.enumerated().map { ($1.name, $0) })
            entity.initialValues = entity.properties.map { property in
                switch property {
                case let .attribute(attribute): attribute.defaultValue ?? .null
                case let .relationship(relationship): relationship.isToMany ? .objects([]) : .null
                }
            }
            for (index, property) in entity.properties.enumerated() where !property.isTransient {
                switch property {
                case .attribute: entity.attributeIndexes.append(index)
                case let .relationship(r): r.isToMany ? entity.toManyIndexes.append(index) : entity.toOneIndexes.append(index)
                }
            }
        }

        for entity in entities {
            entity.toManyIndexSet = PropertyIndexSet(entity.toManyIndexes)
            entity.propertyNames = entity.properties.map(\.name)
            entity.propertyNameLengths = entity.propertyNames.map(\.utf8.count)
            entity.propertyKinds = entity.properties.map(PropertyKind.init)
            entity.validatedIndexes = entity.properties.indices.filter { index in
                switch entity.properties[index] {
                case let .attribute(a):
                    return !a.isTransient && (!a.isOptional || a.minValue != nil || a.maxValue != nil || a.minLength != nil
                        || a.maxLength != nil || a.regularExpression != nil || a.type.integerRange != nil && a.type != .integer64
                        // NaN, which no store keeps (see AttributeDescription.validationFailure).
                        || a.type == .double || a.type == .float || a.type == .date)
                case let .relationship(r):
                    return !r.isTransient && (!r.isOptional || r.minCount > 0 || (r.isToMany && r.maxCount > 0))
                }
            }
        }

        // Relationships: destinations and inverses.
        for entity in entities {
            for relationship in entity.declaredRelationships {
                let label = "\(entity.name).\(relationship.name)"
                guard let destination = byName[relationship.destinationEntityName] else {
                    problems.append("relationship \(label) points to unknown entity \(relationship.destinationEntityName)")
                    continue
                }
                guard let inverseName = relationship.inverseName else { continue }
                guard let inverse = destination.property(named: inverseName)?.relationship else {
                    problems.append("relationship \(label) names inverse \(inverseName), which \(destination.name) does not have")
                    continue
                }
                guard let back = byName[inverse.destinationEntityName], entity.isKind(of: back) || back.isKind(of: entity),
                      inverse.inverseName == nil || inverse.inverseName == relationship.name else {
                    problems.append("relationship \(label) and its inverse \(destination.name).\(inverseName) do not point at each other")
                    continue
                }
            }
            for constraint in entity.uniquenessConstraints {
                for name in constraint where entity.property(named: name) == nil {
                    problems.append("uniqueness constraint on \(entity.name) names unknown property \(name)")
                }
            }
            FetchIndexRules.check(entity, problems: &problems)
            do { entity.derivedAttributes = try DerivedAttribute.of(entity) } catch let error as NimbusError {
                problems.append(error.message)
            } catch {
                problems.append("\(error)")
            }
            if let display = entity.spotlightDisplayNameProperty, entity.property(named: display)?.attribute == nil {
                problems.append("entity \(entity.name) names spotlightDisplayNameProperty \(display), which is not one of its attributes")
            }
        }

        for entity in entities { entity.versionHash = versionHash(of: entity) }
    }

    static func hierarchy(of entity: EntityDescription, byName: [String: EntityDescription]) -> [EntityDescription] {
        [entity] + entity.subentityNames.compactMap { byName[$0] }.flatMap { hierarchy(of: $0, byName: byName) }
    }

    /// What shapes the store: names, types, optionality, relationships, inheritance.
    /// Defaults, validation and user info do not change the hash (as in Core Data).
    static func versionHash(of entity: EntityDescription) -> Data {
        var parts = ["entity:\(entity.name)", "abstract:\(entity.isAbstract)", "super:\(entity.superentityName ?? "")",
                     "modifier:\(entity.versionHashModifier ?? "")"]
        for property in entity.properties where !property.isTransient {
            switch property {
            case let .attribute(a):
                parts.append("a:\(a.name):\(a.type.rawValue):\(a.isOptional):\(a.allowsExternalBinaryDataStorage):\(a.versionHashModifier ?? "")")
            case let .relationship(r):
                parts.append("r:\(r.name):\(r.destinationEntityName):\(r.inverseName ?? ""):\(r.isToMany):\(r.isOrdered):\(r.isOptional):\(r.versionHashModifier ?? "")")
            }
        }
        for constraint in entity.uniquenessConstraints { parts.append("u:" + constraint.joined(separator: ",")) }
        // Indexes leave the hash alone (as in Core Data) unless one carries a modifier.
        for index in entity.fetchIndexes {
            if let modifier = index.versionHashModifier { parts.append("i:\(index.name):\(modifier)") }
        }
        return Data(SHA256.hash(data: Data(parts.joined(separator: "\n").utf8)))
    }
}
