import Foundation
import Nimbus

/// How a model's entities map to records: which properties become fields, which side of a
/// relationship carries it, and which relationships travel as `CDMR` join records.
///
/// Built once per mirrored store; it also checks the rules a mirrored model must follow.
struct MirroredModel: Sendable {
    /// What a property becomes in a record.
    enum PropertyRole: Sendable, Equatable {
        /// `CD_<name>`, with the value (or an asset in `CD_<name>_ckAsset`).
        case attribute(AttributeDescription)
        /// `CD_<name>` holding the related record's name.
        case toOne(RelationshipDescription)
        /// Not in the record: the other side carries it.
        case carriedByInverse
        /// A many-to-many relationship: `CDMR` records, under `key` (the same for both sides).
        case manyToMany(key: String, isFirst: Bool)
    }

    let entities: [EntityDescription]
    /// By entity name, then property name.
    let roles: [String: [String: PropertyRole]]
    /// The keys of the many-to-many relationships (`CD_relationshipKey` of `CDMR` records).
    let linkKeys: Set<String>

    /// Builds the mapping, or throws listing every reason the model can't be mirrored.
    init(entities: [EntityDescription], model: ManagedObjectModel) throws {
        self.entities = entities
        var roles: [String: [String: PropertyRole]] = [:]
        var problems: [String] = []
        let mirrored = Set(entities.map(\.name))
        for entity in entities {
            var entityRoles: [String: PropertyRole] = [:]
            for property in entity.properties {
                if let attribute = property.attribute {
                    guard !attribute.isTransient else { continue }
                    if !attribute.isOptional && attribute.defaultValue == nil {
                        problems.append("\(entity.name).\(attribute.name) is required and has no default value: an object may arrive "
                            + "before all of its values; make it optional or give it a default")
                    }
                    entityRoles[attribute.name] = .attribute(attribute)
                } else if let relationship = property.relationship {
                    guard !relationship.isTransient else { continue }
                    let owner = Self.declaringEntity(of: relationship.name, in: entity)
                    guard let inverseName = relationship.inverseName,
                          let destination = model.entitiesByName[relationship.destinationEntityName],
                          let inverse = destination.relationshipsByName[inverseName] else {
                        problems.append("\(entity.name).\(relationship.name) has no inverse: every mirrored relationship needs one, "
                            + "so that both ends can be rebuilt from records")
                        continue
                    }
                    guard mirrored.contains(destination.name) else {
                        problems.append("\(entity.name).\(relationship.name) points at \(destination.name), which is not in the same mirrored store")
                        continue
                    }
                    if relationship.isOrdered || inverse.isOrdered {
                        problems.append("\(entity.name).\(relationship.name) is ordered: ordered relationships are not mirrored "
                            + "(as with Core Data's CloudKit mirroring); sort by an attribute instead")
                        continue
                    }
                    if !relationship.isToMany && !relationship.isOptional {
                        problems.append("\(entity.name).\(relationship.name) is required: a related object may be deleted on another "
                            + "device at any time, so mirrored to-one relationships must be optional")
                    }
                    let key = "\(owner.name).\(relationship.name)"
                    let inverseKey = "\(Self.declaringEntity(of: inverse.name, in: destination).name).\(inverse.name)"
                    switch (relationship.isToMany, inverse.isToMany) {
                    case (false, true): entityRoles[relationship.name] = .toOne(relationship)
                    case (true, false): entityRoles[relationship.name] = .carriedByInverse
                    case (false, false): entityRoles[relationship.name] = key <= inverseKey ? .toOne(relationship) : .carriedByInverse
                    case (true, true):
                        let first = min(key, inverseKey)
                        entityRoles[relationship.name] = .manyToMany(key: first + "|" + max(key, inverseKey), isFirst: key == first)
                    }
                }
            }
            roles[entity.name] = entityRoles
        }
        guard problems.isEmpty else {
            throw CloudError(.unmirrorableModel, "the model can't be mirrored: " + problems.joined(separator: "; "))
        }
        self.roles = roles
        linkKeys = Set(roles.values.flatMap(\.values).compactMap { role in
            if case let .manyToMany(key, _) = role { return key }
            return nil
        })
    }

    static func declaringEntity(of property: String, in entity: EntityDescription) -> EntityDescription {
        var current = entity
        while let parent = current.superentity, parent.propertiesByName[property] != nil { current = parent }
        return current
    }

    func role(of property: String, in entity: EntityDescription) -> PropertyRole? {
        roles[entity.name]?[property]
    }

    /// `CD_<root entity>`: sub-entities share their root's record type.
    static func recordType(for entity: EntityDescription) -> String { "CD_" + entity.rootEntity.name }

    /// The field a property is stored in.
    static func fieldName(_ property: String) -> String { "CD_" + property }

    /// The field that holds a property's value when it was moved to an asset.
    static func assetFieldName(_ property: String) -> String { "CD_" + property + "_ckAsset" }

    /// The property a field holds (``fieldName(_:)`` or ``assetFieldName(_:)``, read back).
    static func property(ofField field: String) -> String {
        var name = field.dropFirst(field.hasPrefix("CD_") ? 3 : 0)
        if name.hasSuffix("_ckAsset") { name = name.dropLast("_ckAsset".count) }
        return String(name)
    }

    static let entityNameField = "CD_entityName"
    static let linkRecordType = "CDMR"
}
