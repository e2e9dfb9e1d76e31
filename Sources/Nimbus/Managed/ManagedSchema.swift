/// Builds the entity of a `@Managed` class from its declarations; the code the macro writes
/// calls it, so each property's kind follows from its Swift type (an attribute for a
/// ``ManagedAttributeValue``, transformable for a ``ManagedTransformable``, a relationship
/// for a ``ManagedEntityClass``).
///
/// For example, the macro turns
///
/// ```swift
/// @Attribute(.unique) var name: String = ""
/// ```
///
/// into
///
/// ```swift
/// ManagedSchema.property("name", String.self, isOptional: false, default: "", attribute: .init(.unique))
/// ```
public enum ManagedSchema {
    /// A property as a class declares it, with the options that belong to the entity
    /// (uniqueness, fetch indexes) rather than to the property.
    public struct DeclaredProperty: Sendable {
        /// The property's description.
        public var property: PropertyDescription
        /// Whether the property's values must be unique among the entity's objects.
        public var isUnique = false
        /// Whether the entity gets a fetch index on the property.
        public var isIndexed = false
    }

    /// An attribute: `var name: Value` (required) or `var name: Value?` (optional).
    public static func property<Value: ManagedAttributeValue>(
        _ name: String, _ type: Value.Type, isOptional: Bool, default defaultValue: Value? = nil,
        attribute options: AttributeOptions = AttributeOptions()
    ) -> DeclaredProperty {
        var attribute = AttributeDescription(name, Value.managedAttributeType, isOptional: isOptional,
                                             isTransient: options.isTransient,
                                             allowsExternalBinaryDataStorage: options.options.contains(.externalStorage),
                                             preservesValueInHistoryOnDeletion: options.options.contains(.preservesValueOnDeletion),
                                             renamingIdentifier: options.originalName,
                                             isIndexedBySpotlight: options.options.contains(.spotlight))
        if let transformable = Value.self as? any ManagedTransformable.Type {
            attribute.valueTransformerName = transformable.managedTransformerName
            transformable.registerTransformer()
        }
        attribute.defaultValue = defaultValue?.managedValue
        var declared = DeclaredProperty(property: .attribute(attribute))
        declared.isUnique = options.options.contains(.unique)
        declared.isIndexed = options.options.contains(.indexed)
        return declared
    }

    /// A to-one relationship: `var name: Destination?`.
    public static func property<Destination: ManagedEntityClass>(
        _ name: String, _ type: Destination.Type, isOptional: Bool, default defaultValue: Destination? = nil,
        relationship options: RelationshipOptions = RelationshipOptions()
    ) -> DeclaredProperty {
        DeclaredProperty(property: .relationship(relationship(name, Destination.self, toMany: false, ordered: false,
                                                              isOptional: isOptional, options)))
    }

    /// A to-many relationship: `var name: Set<Destination>`, or `[Destination]` when ordered.
    public static func toMany<Destination: ManagedEntityClass>(
        _ name: String, _ type: Destination.Type, ordered: Bool,
        relationship options: RelationshipOptions = RelationshipOptions()
    ) -> DeclaredProperty {
        DeclaredProperty(property: .relationship(relationship(name, Destination.self, toMany: true, ordered: ordered,
                                                              isOptional: options.minimumCount == 0, options)))
    }

    private static func relationship<Destination: ManagedEntityClass>(
        _ name: String, _ destination: Destination.Type, toMany: Bool, ordered: Bool, isOptional: Bool,
        _ options: RelationshipOptions
    ) -> RelationshipDescription {
        var inverseName: String?
        if let inverse = options.inverse {
            // A key path of another class names nothing here; the model then reports the
            // inverse as missing, with this text as its name.
            inverseName = Destination.propertyName(for: inverse) ?? "(\(inverse) is not a property of \(Destination.self))"
        }
        return RelationshipDescription(name, to: Destination.managedEntityName, inverse: inverseName, toMany: toMany,
                                       ordered: ordered, deleteRule: options.deleteRule, isOptional: isOptional,
                                       minCount: options.minimumCount, maxCount: options.maximumCount,
                                       renamingIdentifier: options.originalName)
    }

    /// The entity of a class from its declared properties.
    public static func entity(
        _ name: String, class managedObjectClass: ManagedObject.Type, parent: String? = nil, isAbstract: Bool = false,
        properties: [DeclaredProperty]
    ) -> EntityDescription {
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        for declared in properties {
            switch declared.property {
            case let .attribute(attribute): attributes.append(attribute)
            case let .relationship(relationship): relationships.append(relationship)
            }
        }
        let indexes = properties.filter(\.isIndexed).map {
            FetchIndexDescription(name: "by" + $0.property.name.prefix(1).uppercased() + $0.property.name.dropFirst(),
                                  elements: [.init($0.property.name)])
        }
        return EntityDescription(name, parent: parent, isAbstract: isAbstract, class: managedObjectClass,
                                 className: String(describing: managedObjectClass), attributes: attributes,
                                 relationships: relationships, fetchIndexes: indexes,
                                 uniquenessConstraints: properties.filter(\.isUnique).map { [$0.property.name] })
    }
}

/// An option of an attribute of a `@Managed` class, given with `@Attribute(…)`.
public enum ManagedAttributeOption: Sendable, Hashable {
    /// No two objects of the entity may have the same value (a uniqueness constraint).
    case unique
    /// The entity gets a fetch index on the attribute.
    case indexed
    /// The value lives in memory only and is never stored.
    case transient
    /// Large binary values may be stored in files beside the store.
    case externalStorage
    /// The value is kept in the history's tombstone when the object is deleted.
    case preservesValueOnDeletion
    /// The text goes into the store's search index.
    case spotlight
    /// A collection (`[Point]`, `[String: [Int]]`) is one transformable attribute of
    /// `Codable` values rather than a to-many relationship; collections of plain values
    /// (`[String]`, `Set<UUID>`) are without it (``ManagedTransformable``).
    case transformable
}

extension ManagedSchema {
    /// The arguments of `@Attribute(…)`.
    public struct AttributeOptions: Sendable {
        /// The options.
        public var options: Set<ManagedAttributeOption>
        /// The attribute's previous name, for lightweight migration.
        public var originalName: String?

        /// Options as `@Attribute` takes them.
        public init(_ options: ManagedAttributeOption..., originalName: String? = nil) {
            self.options = Set(options)
            self.originalName = originalName
        }

        var isTransient: Bool { options.contains(.transient) }
    }

    /// The arguments of `@Relationship(…)`.
    public struct RelationshipOptions: @unchecked Sendable {
        /// What deleting the object does to its destinations.
        public var deleteRule: RelationshipDescription.DeleteRule
        /// The inverse relationship, as a key path of the destination class.
        public var inverse: AnyKeyPath?
        /// For to-many: the fewest destinations allowed on save.
        public var minimumCount: Int
        /// For to-many: the most destinations allowed on save (0: no maximum).
        public var maximumCount: Int
        /// The relationship's previous name, for lightweight migration.
        public var originalName: String?

        /// Options as `@Relationship` takes them.
        public init(deleteRule: RelationshipDescription.DeleteRule = .nullify, inverse: AnyKeyPath? = nil,
                    minimumCount: Int = 0, maximumCount: Int = 0, originalName: String? = nil) {
            self.deleteRule = deleteRule
            self.inverse = inverse
            self.minimumCount = minimumCount
            self.maximumCount = maximumCount
            self.originalName = originalName
        }
    }
}
