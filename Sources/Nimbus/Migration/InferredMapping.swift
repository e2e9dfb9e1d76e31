import Foundation

/// How a store written with one model maps onto another, inferred as Core Data's
/// lightweight migration does: entities and properties match by name or by the new one's
/// `renamingIdentifier`; added attributes take their default (or nil); removed ones are
/// dropped; numeric types widen (``canConvert(_:to:)``); an attribute that becomes
/// required takes its default where the store holds nil; to-one and to-many relationships
/// may trade places. Other type changes and attribute <-> relationship cannot be inferred;
/// a new required attribute without a default can, over an entity without rows.
struct InferredMapping {
    /// New entity name for each old entity name that survives.
    var entities: [String: String] = [:]
    /// For each new entity: new property name -> old property name.
    var properties: [String: [String: String]] = [:]
    /// Old entity names that are removed.
    var removedEntities: Set<String> = []
    let source: ManagedObjectModel
    let destination: ManagedObjectModel

    /// Type changes Core Data infers: integer widths, Boolean to integer, integer to
    /// floating point or decimal, float to double, and double to decimal.
    static func canConvert(_ old: AttributeType, to new: AttributeType) -> Bool {
        if old == new { return true }
        switch (old, new) {
        case (.integer16, .integer16), (.integer16, .integer32), (.integer16, .integer64),
             (.integer32, .integer16), (.integer32, .integer32), (.integer32, .integer64),
             (.integer64, .integer16), (.integer64, .integer32), (.integer64, .integer64):
            return true
        case (.boolean, .integer16), (.boolean, .integer32), (.boolean, .integer64): return true
        case (.integer16, .double), (.integer32, .double), (.integer64, .double),
             (.integer16, .float), (.integer32, .float), (.integer64, .float),
             (.integer16, .decimal), (.integer32, .decimal), (.integer64, .decimal): return true
        case (.float, .double), (.float, .decimal), (.double, .decimal): return true
        default: return false
        }
    }

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
                    // A new required attribute without a default fails only when the entity
                    // has rows to fill, as in Core Data (checked as the migration runs).
                    continue
                }
                switch (property, oldProperty) {
                case let (.attribute(new), .attribute(previous)):
                    if !Self.canConvert(previous.type, to: new.type) {
                        problems.append("\(entity.name).\(new.name) changed type from \(previous.type.rawValue) to \(new.type.rawValue)")
                    }
                case (.relationship, .relationship):
                    // To-one <-> to-many is carried over as the pairs of related objects; a
                    // to-many that becomes to-one is checked against the rows when it runs.
                    break
                default:
                    problems.append("\(entity.name).\(property.name) changed between attribute and relationship")
                }
                map[property.name] = oldProperty.name
            }
            properties[entity.name] = map
        }
        removedEntities = Set(source.entities.map(\.name)).subtracting(entities.keys)
        self.source = source
        self.destination = destination
        guard problems.isEmpty else {
            throw NimbusError(.modelMismatch, "the store cannot be migrated automatically: " + problems.joined(separator: "; "))
        }
    }
}
