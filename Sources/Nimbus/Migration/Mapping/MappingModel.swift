import Foundation

/// How to migrate a store from one model to another, entity by entity: Core Data's
/// `NSMappingModel`, read from an Xcode `.xcmappingmodel` or built in code.
///
/// For example:
///
/// ```swift
/// let mapping = try MappingModel(contentsOf: URL(fileURLWithPath: "Notes2to3.xcmappingmodel"))
/// let manager = MigrationManager(sourceModel: v2, destinationModel: v3)
/// try manager.migrateStore(from: old, to: new, mapping: mapping)
/// ```
public struct MappingModel: Sendable, Hashable {
    /// The entity mappings, in the order they run.
    public var entityMappings: [EntityMapping]
    /// Where the mapping model was read from, for messages.
    public var source: String?
    /// The model versions Xcode recorded it maps between (`sourcemodelpath` and
    /// `destinationmodelpath`: `Model 2`, `Model 3`), used to place it in a plan.
    public var sourceModelVersion: String?
    public var destinationModelVersion: String?

    /// Creates a mapping model.
    public init(entityMappings: [EntityMapping], source: String? = nil,
                sourceModelVersion: String? = nil, destinationModelVersion: String? = nil) {
        self.entityMappings = entityMappings
        self.source = source
        self.sourceModelVersion = sourceModelVersion
        self.destinationModelVersion = destinationModelVersion
    }

    /// The entity mapping of a name.
    public func entityMapping(named name: String) -> EntityMapping? {
        entityMappings.first { $0.name == name }
    }
}

/// One entity's mapping: Core Data's `NSEntityMapping`.
public struct EntityMapping: Sendable, Hashable {
    /// What a mapping does with its source objects (`NSEntityMappingType`).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// New destination entity: nothing in the source maps to it.
        case add
        /// The source entity is dropped with its objects.
        case remove
        /// Objects are copied as they are (the two versions agree).
        case copy
        /// Objects are copied through the property mappings.
        case transform
        /// A custom policy decides everything.
        case custom
    }

    /// The mapping's name: `<Source>To<Destination>` unless the author gave one.
    public var name: String
    public var kind: Kind
    public var sourceEntityName: String?
    public var destinationEntityName: String?
    /// Only source objects matching this predicate are migrated (Xcode's "Filter
    /// Predicate"); the others are dropped.
    public var sourcePredicate: String?
    /// The name a custom ``EntityMigrationPolicy`` is registered under
    /// (``MigrationPolicies/register(_:as:)``); Xcode's "Custom Policy".
    public var migrationPolicyName: String?
    public var attributeMappings: [PropertyMapping]
    public var relationshipMappings: [PropertyMapping]
    public var userInfo: [String: String]

    /// Creates an entity mapping.
    public init(name: String? = nil, kind: Kind, source: String?, destination: String?, sourcePredicate: String? = nil,
                migrationPolicyName: String? = nil, attributeMappings: [PropertyMapping] = [],
                relationshipMappings: [PropertyMapping] = [], userInfo: [String: String] = [:]) {
        self.name = name ?? Self.defaultName(source: source, destination: destination)
        self.kind = kind
        self.sourceEntityName = source
        self.destinationEntityName = destination
        self.sourcePredicate = sourcePredicate
        self.migrationPolicyName = migrationPolicyName
        self.attributeMappings = attributeMappings
        self.relationshipMappings = relationshipMappings
        self.userInfo = userInfo
    }

    /// `NoteToNote`, as Xcode names mappings.
    public static func defaultName(source: String?, destination: String?) -> String {
        switch (source, destination) {
        case let (s?, d?) where !s.isEmpty && !d.isEmpty: "\(s)To\(d)"
        case let (_, d?) where !d.isEmpty: d
        default: source ?? ""
        }
    }
}

/// One property's mapping: Core Data's `NSPropertyMapping`. A nil expression leaves the
/// destination property at its default.
public struct PropertyMapping: Sendable, Hashable {
    /// The destination property.
    public var name: String
    /// How its value is computed from the source object.
    public var valueExpression: MappingExpression?
    /// Filled in by Xcode (the editor's default): a source without the property leaves
    /// the destination's default instead of failing.
    public var isAutomatic = false

    /// Creates a property mapping.
    public init(_ name: String, _ valueExpression: MappingExpression?) {
        self.name = name
        self.valueExpression = valueExpression
    }
}
