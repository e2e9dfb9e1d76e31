import Foundation

extension ManagedObjectContext {
    /// Computes the derived attributes of every object the save writes, as Core Data does on
    /// save: objects inserted or changed, and objects whose derivation reads a to-one
    /// destination that changed (`author.name` when the author is renamed). Values set by
    /// the app on a derived attribute are replaced.
    func computeDerivedAttributes() throws {
        let derivedEntities = managedObjectModel.entities.filter { !$0.derivedAttributes.isEmpty }
        guard !derivedEntities.isEmpty else { return }
        let saved = pendingInsertions() + changedSet.filter { !$0.flags.isInserted }
        var targets: [ObjectIdentifier: ManagedObject] = [:]
        for object in saved where !object.flags.isDeleted && !object.flags.isDeletedInStore {
            targets[ObjectIdentifier(object)] = object
        }
        // Dependents through to-one key paths, found by the relationship's inverse.
        for entity in derivedEntities {
            for derived in entity.derivedAttributes {
                for relationship in derived.toOneRelationships {
                    guard let inverse = relationship.inverseName else { continue }
                    for object in saved where object.entity.isKind(of: relationship.destinationEntityName, in: managedObjectModel)
                        && !object.flags.isDeleted {
                        for dependent in try related(object, through: inverse) where dependent.entity.isKind(of: entity) {
                            targets[ObjectIdentifier(dependent)] = dependent
                        }
                    }
                }
            }
        }
        for object in targets.values {
            for derived in object.entity.derivedAttributes {
                object.setPrimitive(try derived.value(for: object), at: derived.index)
            }
        }
    }

    private func related(_ object: ManagedObject, through name: String) throws -> [ManagedObject] {
        switch object.value(forKey: name) {
        case let single as ManagedObject: return [single]
        case let set as RelationshipSet: return Array(set)
        case let objects as Set<ManagedObject>: return Array(objects)
        case let objects as [ManagedObject]: return objects
        default: return []
        }
    }
}

extension EntityDescription {
    /// Whether the entity is the one named, or inherits from it.
    func isKind(of name: String, in model: ManagedObjectModel) -> Bool {
        guard let other = model.entitiesByName[name] else { return false }
        return isKind(of: other)
    }
}
