import Foundation

/// How a store written with one model maps onto another, inferred as Core Data's
/// lightweight migration does: entities and properties match by name or by the new one's
/// `renamingIdentifier`; added attributes take their default (or nil); removed ones are
/// dropped; a changed attribute type, or a new required attribute without a default, cannot
/// be inferred.
struct InferredMapping {
    /// New entity name for each old entity name that survives.
    var entities: [String: String] = [:]
    /// For each new entity: new property name -> old property name.
    var properties: [String: [String: String]] = [:]
    /// Old entity names that are removed.
    var removedEntities: Set<String> = []

    init(from source: ManagedObjectModel, to destination: ManagedObjectModel) throws {
        var problems: [String] = []
        for entity in destination.entities {
            let oldName = source.entitiesByName[entity.name] != nil ? entity.name : entity.renamingIdentifier
            guard let oldName, let old = source.entitiesByName[oldName] else { continue }
            entities[oldName] = entity.name
            var map: [String: String] = [:]
            for property in entity.properties where !property.isTransient {
                let candidates = [property.name] + [property.attribute?.renamingIdentifier ?? property.relationship?.renamingIdentifier].compactMap { $0 }
                guard let oldProperty = candidates.lazy.compactMap({ old.property(named: $0) }).first, !oldProperty.isTransient else {
                    if let attribute = property.attribute, !attribute.isOptional, attribute.defaultValue == nil {
                        problems.append("\(entity.name).\(attribute.name) is new and required but has no default value")
                    }
                    continue
                }
                switch (property, oldProperty) {
                case let (.attribute(new), .attribute(previous)):
                    if new.type != previous.type && !(new.type.isInteger && previous.type.isInteger) {
                        problems.append("\(entity.name).\(new.name) changed type from \(previous.type.rawValue) to \(new.type.rawValue)")
                    }
                case let (.relationship(new), .relationship(previous)):
                    if new.isToMany != previous.isToMany {
                        problems.append("\(entity.name).\(new.name) changed between to-one and to-many")
                    }
                default:
                    problems.append("\(entity.name).\(property.name) changed between attribute and relationship")
                }
                map[property.name] = oldProperty.name
            }
            properties[entity.name] = map
        }
        removedEntities = Set(source.entities.map(\.name)).subtracting(entities.keys)
        guard problems.isEmpty else {
            throw NimbusError(.modelMismatch, "the store cannot be migrated automatically: " + problems.joined(separator: "; "))
        }
    }
}
