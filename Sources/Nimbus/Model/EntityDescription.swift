import Foundation

/// An entity of a model: its name, its properties, its place in an inheritance hierarchy.
///
/// Build entities with the model builder and read them back from the model, whose
/// entities know their super- and sub-entities and their inherited properties. For example:
///
/// ```swift
/// let model = ManagedObjectModel {
///     EntityDescription("Post") {
///         AttributeDescription("title", .string)
///         RelationshipDescription("tags", to: "Tag", inverse: "posts", toMany: true)
///     }
///     EntityDescription("Tag") {
///         AttributeDescription("name", .string)
///         RelationshipDescription("posts", to: "Post", inverse: "tags", toMany: true)
///     }
/// }
/// let post = model.entitiesByName["Post"]!
/// ```
///
/// An entity is immutable once its model is built, so it is safe to share across threads.
public final class EntityDescription: @unchecked Sendable {
    /// The entity's name.
    public let name: String
    /// The name of the parent entity, if any.
    public let superentityName: String?
    /// An abstract entity has no instances of its own, only of sub-entities.
    public let isAbstract: Bool
    /// The class of its instances: `ManagedObject` or a subclass.
    public let managedObjectClass: ManagedObject.Type
    /// The class name an Xcode model gave, kept for reference.
    public let managedObjectClassName: String?
    /// The attributes declared on this entity (not inherited ones).
    public let declaredAttributes: [AttributeDescription]
    /// The relationships declared on this entity (not inherited ones).
    public let declaredRelationships: [RelationshipDescription]
    /// Fetch indexes declared on this entity.
    public let fetchIndexes: [FetchIndexDescription]
    /// Sets of properties whose values together must be unique.
    public let uniquenessConstraints: [[String]]
    /// The entity's previous name, for lightweight migration.
    public let renamingIdentifier: String?
    /// Changes the version hash without changing the schema.
    public let versionHashModifier: String?
    /// Free-form information from the model editor.
    public let userInfo: [String: String]
    /// The key path whose value names an object in search results (Xcode's
    /// `spotlightDisplayNameProperty`, Core Data's `coreSpotlightDisplayNameExpression`).
    /// Does not change the version hash. See ``SearchIndexer``.
    public let spotlightDisplayNameProperty: String?
    /// Fetched properties (Core Data's `NSFetchedPropertyDescription`), read with `value(forKey:)`.
    public let fetchedProperties: [FetchedPropertyDescription]

    // Resolved by the model that owns the entity; constant once the model is built.
    /// The entity number (`Z_ENT`): from 1, alphabetical, each hierarchy depth-first.
    @exclusivity(unchecked) public internal(set) var entityNumber: Int = 0
    /// The parent entity.
    @exclusivity(unchecked) public internal(set) var superentity: EntityDescription?
    /// Every property, inherited ones included, sorted by name.
    @exclusivity(unchecked) public internal(set) var properties: [PropertyDescription] = []
    /// Index of each property in ``properties``.
    @exclusivity(unchecked) public internal(set) var propertyIndexes: [String: Int] = [:]
    /// The entity's version hash: changes when anything that shapes the store changes.
    @exclusivity(unchecked) public internal(set) var versionHash: Data = Data()
    /// Names of the direct sub-entities.
    @exclusivity(unchecked) public internal(set) var subentityNames: [String] = []
    /// The entity and all its sub-entities, recursively, as entity numbers.
    @exclusivity(unchecked) public internal(set) var entityNumbersInHierarchy: [Int] = []
    /// The entity number of the hierarchy's root: rows of one hierarchy share its table.
    @exclusivity(unchecked) public internal(set) var rootEntityNumber: Int = 0
    // Derived state below is written once, while the model is resolved, and only read after;
    // reads skip the runtime's dynamic exclusivity checks.
    weak var model: ManagedObjectModel?
    @exclusivity(unchecked) var attributeIndexes: [Int] = []
    /// The values a new object starts with (defaults; empty to-many relationships).
    @exclusivity(unchecked) var initialValues: [PropertyValue] = []
    /// ``toManyIndexes`` as a set, for new objects.
    @exclusivity(unchecked) var toManyIndexSet: PropertyIndexSet = []
    /// Stored properties that have a rule to check on save (others always pass).
    @exclusivity(unchecked) var validatedIndexes: [Int] = []
    @exclusivity(unchecked) var toOneIndexes: [Int] = []
    @exclusivity(unchecked) var toManyIndexes: [Int] = []
    /// What each property is, in a form that copies without reference counting: the hot
    /// paths of accessors switch on this instead of on ``properties``.
    @exclusivity(unchecked) var propertyKinds: [PropertyKind] = []
    /// Property names in index order, scanned by ``index(ofProperty:)`` for small entities.
    @exclusivity(unchecked) var propertyNames: [String] = []
    /// The UTF-8 length of each name in ``propertyNames``.
    @exclusivity(unchecked) var propertyNameLengths: [Int] = []
    /// For entities of a ``ManagedEntityClass``: the property index of each of the class's
    /// slots (its typed accessors read through it; see `ManagedObject+TypedStorage.swift`).
    @usableFromInline @exclusivity(unchecked) var typedSlots: [Int] = []
    /// The entity's derived attributes, parsed (see ``AttributeDescription/derivationExpression``).
    @exclusivity(unchecked) var derivedAttributes: [DerivedAttribute] = []

    /// Whether the entity has relationships (so its values can refer to other objects).
    var hasRelationships: Bool { !toOneIndexes.isEmpty || !toManyIndexes.isEmpty }

    /// The index of a property by name; nil when the entity has no such property.
    ///
    /// Small entities scan their names, comparing only names of the same UTF-8 length (a
    /// native string knows its length without reading it); large ones hash.
    @inline(__always)
    func index(ofProperty name: String) -> Int? {
        guard propertyNames.count <= 12 else { return propertyIndexes[name] }
        let length = name.utf8.count
        for index in propertyNameLengths.indices where propertyNameLengths[index] == length && propertyNames[index] == name {
            return index
        }
        return nil
    }

    /// Creates an entity from its properties.
    public init(
        _ name: String,
        parent superentityName: String? = nil,
        isAbstract: Bool = false,
        class managedObjectClass: ManagedObject.Type = ManagedObject.self,
        className: String? = nil,
        attributes: [AttributeDescription] = [],
        relationships: [RelationshipDescription] = [],
        fetchIndexes: [FetchIndexDescription] = [],
        uniquenessConstraints: [[String]] = [],
        renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil,
        userInfo: [String: String] = [:],
        spotlightDisplayNameProperty: String? = nil,
        fetchedProperties: [FetchedPropertyDescription] = []
    ) {
        self.name = name
        self.superentityName = superentityName
        self.isAbstract = isAbstract
        self.managedObjectClass = managedObjectClass
        self.managedObjectClassName = className
        self.declaredAttributes = attributes
        self.declaredRelationships = relationships
        self.fetchIndexes = fetchIndexes
        self.uniquenessConstraints = uniquenessConstraints
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
        self.spotlightDisplayNameProperty = spotlightDisplayNameProperty
        self.fetchedProperties = fetchedProperties
    }

    /// Creates an entity whose properties and indexes come from a builder block.
    public convenience init(
        _ name: String,
        parent superentityName: String? = nil,
        isAbstract: Bool = false,
        class managedObjectClass: ManagedObject.Type = ManagedObject.self,
        uniquenessConstraints: [[String]] = [],
        spotlightDisplayNameProperty: String? = nil,
        @EntityBuilder _ content: () -> [EntityBuilder.Component]
    ) {
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        var indexes: [FetchIndexDescription] = []
        for component in content() {
            switch component {
            case let .attribute(attribute): attributes.append(attribute)
            case let .relationship(relationship): relationships.append(relationship)
            case let .index(index): indexes.append(index)
            }
        }
        self.init(name, parent: superentityName, isAbstract: isAbstract, class: managedObjectClass,
                  attributes: attributes, relationships: relationships, fetchIndexes: indexes,
                  uniquenessConstraints: uniquenessConstraints, spotlightDisplayNameProperty: spotlightDisplayNameProperty)
    }

    /// A fresh, unresolved copy for another model.
    func declarationCopy() -> EntityDescription {
        EntityDescription(name, parent: superentityName, isAbstract: isAbstract, class: managedObjectClass,
                          className: managedObjectClassName, attributes: declaredAttributes,
                          relationships: declaredRelationships, fetchIndexes: fetchIndexes,
                          uniquenessConstraints: uniquenessConstraints, renamingIdentifier: renamingIdentifier,
                          versionHashModifier: versionHashModifier, userInfo: userInfo,
                          spotlightDisplayNameProperty: spotlightDisplayNameProperty, fetchedProperties: fetchedProperties)
    }

    /// The model the entity belongs to.
    public var managedObjectModel: ManagedObjectModel? { model }

    /// The direct sub-entities.
    public var subentities: [EntityDescription] {
        subentityNames.compactMap { model?.entitiesByName[$0] }
    }

    /// The root of the entity's inheritance hierarchy (itself when it has no parent).
    public var rootEntity: EntityDescription {
        var entity = self
        while let parent = entity.superentity { entity = parent }
        return entity
    }

    /// Every property by name, inherited ones included.
    public var propertiesByName: [String: PropertyDescription] {
        Dictionary(uniqueKeysWithValues: properties.map { ($0.name, $0) })
    }

    /// Every attribute by name, inherited ones included.
    public var attributesByName: [String: AttributeDescription] {
        Dictionary(uniqueKeysWithValues: properties.compactMap { $0.attribute.map { ($0.name, $0) } })
    }

    /// Every relationship by name, inherited ones included.
    public var relationshipsByName: [String: RelationshipDescription] {
        Dictionary(uniqueKeysWithValues: properties.compactMap { $0.relationship.map { ($0.name, $0) } })
    }

    /// The property with a name, inherited ones included.
    public func property(named name: String) -> PropertyDescription? {
        propertyIndexes[name].map { properties[$0] }
    }

    /// Whether this entity is `entity` or one of its sub-entities.
    public func isKind(of entity: EntityDescription) -> Bool {
        var current: EntityDescription? = self
        while let candidate = current {
            if candidate === entity { return true }
            current = candidate.superentity
        }
        return false
    }

    /// The destination entity of a relationship.
    public func destination(of relationship: RelationshipDescription) -> EntityDescription? {
        model?.entitiesByName[relationship.destinationEntityName]
    }

    /// The inverse of a relationship, on its destination.
    public func inverse(of relationship: RelationshipDescription) -> RelationshipDescription? {
        guard let inverseName = relationship.inverseName else { return nil }
        return destination(of: relationship)?.property(named: inverseName)?.relationship
    }
}

extension EntityDescription: Hashable {
    public static func == (lhs: EntityDescription, rhs: EntityDescription) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension EntityDescription: CustomStringConvertible {
    public var description: String { "<entity \(name)>" }
}
