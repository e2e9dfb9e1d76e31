import Nimbus
import Synchronization

/// What NimbusData knows of a model class: its entity and how each property is stored.
/// Built once per class from the metadata `@Model` writes.
final class ModelEntityInfo: @unchecked Sendable {
    /// One persisted property.
    struct Property {
        let name: String
        let kind: ValueKind
        let isOptional: Bool
        let metadata: Schema.PropertyMetadata
    }

    let type: any PersistentModel.Type
    let name: String
    let properties: [String: Property]
    let propertyNames: [String]
    let entity: EntityDescription

    private static let cache = Mutex<[ObjectIdentifier: ModelEntityInfo]>([:])

    /// The info of a model class.
    ///
    /// - Throws: ``ModelError`` naming every property whose type cannot be stored.
    static func info(for type: any PersistentModel.Type) throws -> ModelEntityInfo {
        if let known = cache.withLock({ $0[ObjectIdentifier(type)] }) { return known }
        let info = try ModelEntityInfo(type)
        cache.withLock { $0[ObjectIdentifier(type)] = info }
        return info
    }

    /// The info of a class known to be valid (a model that exists was made of it).
    static func known(_ type: any PersistentModel.Type) -> ModelEntityInfo {
        do {
            return try info(for: type)
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// The model classes a class's relationships point to.
    static func destinationTypes(of type: any PersistentModel.Type) -> [any PersistentModel.Type] {
        type.schemaMetadata.compactMap { property -> (any PersistentModel.Type)? in
            guard let kind = classify(property.valueType)?.kind else { return nil }
            switch kind {
            case let .toOne(destination), let .toMany(destination, _): return destination
            default: return nil
            }
        }
    }

    static func classify(_ type: Any.Type) -> (kind: ValueKind, isOptional: Bool)? {
        if let optional = type as? any _OptionalType.Type {
            return ValueKind.classify(optional._wrappedType).map { ($0, true) }
        }
        return ValueKind.classify(type).map { ($0, false) }
    }

    private init(_ type: any PersistentModel.Type) throws {
        self.type = type
        self.name = String(describing: type)
        var properties: [String: Property] = [:]
        var names: [String] = []
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        var unique: [[String]] = []
        var indexed: [[String]] = []
        var problems: [String] = []
        for metadata in type.schemaMetadata {
            guard let (kind, isOptional) = Self.classify(metadata.valueType) else {
                problems.append("\(name).\(metadata.name) is a \(metadata.valueType), which is neither a model, an array of models, a built-in attribute type, an enum with a raw value nor Codable")
                continue
            }
            properties[metadata.name] = Property(name: metadata.name, kind: kind, isOptional: isOptional, metadata: metadata)
            names.append(metadata.name)
            switch kind {
            case let .toOne(destination), let .toMany(destination, _):
                let options = metadata.metadata as? Schema.Relationship
                var inverseName: String?
                if let inverse = options?.inverse {
                    inverseName = destination.propertyName(for: inverse) ?? "(\(inverse) is not a property of \(destination))"
                } else {
                    // SwiftData needs `inverse:` on one side only: take it from the other.
                    inverseName = Self.inverseDeclared(by: destination, for: metadata.name, of: type)
                }
                let isToMany: Bool = if case .toMany = kind { true } else { false }
                relationships.append(RelationshipDescription(
                    metadata.name, to: String(describing: destination), inverse: inverseName, toMany: isToMany, ordered: false,
                    deleteRule: options?.deleteRule.nimbus ?? .nullify,
                    isOptional: isToMany ? (options?.minimumModelCount ?? 0) == 0 : isOptional,
                    minCount: options?.minimumModelCount ?? 0, maxCount: options?.maximumModelCount ?? 0,
                    renamingIdentifier: options?.originalName, versionHashModifier: options?.hashModifier))
                if options?.options.contains(.unique) == true { unique.append([metadata.name]) }
            default:
                let options = metadata.metadata as? Schema.Attribute
                let has = { (option: Schema.Attribute.Option) in options?.options.contains(option) == true }
                var attribute = AttributeDescription(
                    metadata.name, kind.attributeType!, isOptional: isOptional, isTransient: has(.ephemeral),
                    allowsExternalBinaryDataStorage: has(.externalStorage), preservesValueInHistoryOnDeletion: has(.preserveValueOnDeletion),
                    valueTransformerName: kind.transformerName, renamingIdentifier: options?.originalName,
                    versionHashModifier: options?.hashModifier, isIndexedBySpotlight: has(.spotlight))
                if let defaultValue = metadata.defaultValue.flatMap(unwrapped) {
                    attribute.defaultValue = Self.storedValue(defaultValue, kind: kind)
                }
                attributes.append(attribute)
                if has(.unique) { unique.append([metadata.name]) }
            }
        }
        guard problems.isEmpty else {
            throw ModelError(.unsupportedType, "\(name) cannot be stored: " + problems.joined(separator: "; "))
        }
        unique += type._nimbusUniqueness
        indexed += type._nimbusIndexes
        // Named as @Managed names its indexes (`byTitle`), so both make the same SQL.
        let indexes = indexed.map { names in
            FetchIndexDescription(name: "by" + names.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(),
                                  elements: names.map { .init($0) })
        }
        self.properties = properties
        self.propertyNames = names
        self.entity = EntityDescription(name, attributes: attributes, relationships: relationships, fetchIndexes: indexes,
                                        uniquenessConstraints: unique)
    }

    /// The relationship of `destination` whose `@Relationship(inverse:)` names `name` of `type`.
    static func inverseDeclared(by destination: any PersistentModel.Type, for name: String,
                                of type: any PersistentModel.Type) -> String? {
        for property in destination.schemaMetadata {
            guard let options = property.metadata as? Schema.Relationship, let inverse = options.inverse,
                  type.propertyName(for: inverse) == name else { continue }
            switch classify(property.valueType)?.kind {
            case let .toOne(target)?, let .toMany(target, _)?:
                if target == type { return property.name }
            default: continue
            }
        }
        return nil
    }

    /// The stored form of an attribute value (not nil, not a model).
    static func storedValue(_ value: Any, kind: ValueKind) -> PropertyValue? {
        switch kind {
        case .builtin:
            return (value as? any ManagedAttributeValue)?.managedValue
        case .raw:
            guard let raw = value as? any RawRepresentable else { return nil }
            return (raw.rawValue as? any ManagedAttributeValue)?.managedValue
        case let .codable(name):
            return try? PropertyValue(value, for: .transformable, transformerName: name)
        case .toOne, .toMany:
            return nil
        }
    }
}

extension Schema.Relationship.DeleteRule {
    var nimbus: RelationshipDescription.DeleteRule {
        switch self {
        case .nullify: .nullify
        case .cascade: .cascade
        case .deny: .deny
        case .noAction: .noAction
        }
    }
}
