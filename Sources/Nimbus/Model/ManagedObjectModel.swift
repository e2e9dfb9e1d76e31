import Crypto
import Foundation
import Synchronization

/// A model: the entities of an object graph and how they relate.
///
/// Build one in code, decode one from JSON, or load one drawn in Xcode
/// (``init(contentsOf:)``). For example:
///
/// ```swift
/// let model = try ManagedObjectModel {
///     EntityDescription("Person") {
///         AttributeDescription("name", .string, isOptional: false)
///         RelationshipDescription("posts", to: "Post", inverse: "author", toMany: true, deleteRule: .cascade)
///     }
///     EntityDescription("Post") {
///         AttributeDescription("title", .string)
///         RelationshipDescription("author", to: "Person", inverse: "posts")
///     }
/// }
/// ```
///
/// A model is immutable and safe to share across threads and contexts.
public final class ManagedObjectModel: Sendable {
    /// The entities, sorted by entity number.
    public let entities: [EntityDescription]
    /// The entities by name.
    public let entitiesByName: [String: EntityDescription]
    /// Named subsets of entities; a store can hold one configuration.
    public let configurations: [String: [String]]
    /// Free-form identifiers of this model version (not part of the version hash).
    public let versionIdentifiers: Set<String>
    /// The version hash of each entity, by name.
    public let entityVersionHashesByName: [String: Data]
    /// One hash for the whole model: equal hashes mean compatible stores.
    public let versionHash: Data
    /// Properties parsed from an Xcode model but not supported yet, as readable notes.
    public let unsupportedFeatures: [String]
    /// The model's fetch request templates, by name (see ``fetchRequestFromTemplate(withName:substitutionVariables:)``).
    public let fetchRequestTemplates: [String: FetchRequestTemplate]
    private let schemaCache = Mutex<StoreSchema?>(nil)

    /// The tables and columns of a store for this model, computed once.
    package var schema: StoreSchema {
        schemaCache.withLock { cached in
            if let cached { return cached }
            let schema = StoreSchema(model: self)
            cached = schema
            return schema
        }
    }

    /// Builds a model from entities, checking that it is consistent.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidModel`` naming every problem found.
    public init(
        entities declared: [EntityDescription],
        configurations: [String: [String]] = [:],
        versionIdentifiers: Set<String> = [],
        unsupportedFeatures: [String] = [],
        fetchRequestTemplates: [String: FetchRequestTemplate] = [:]
    ) throws {
        let entities = declared.map { $0.declarationCopy() }
        var byName: [String: EntityDescription] = [:]
        var problems: [String] = []
        for entity in entities {
            if entity.name.isEmpty { problems.append("an entity has an empty name") }
            if byName.updateValue(entity, forKey: entity.name) != nil {
                problems.append("entity \(entity.name) is declared twice")
            }
        }
        ModelNameRules.check(entities, problems: &problems)
        ModelResolver.resolve(entities, byName: byName, problems: &problems)
        ManagedClassSlots.resolve(entities, problems: &problems)
        for (configuration, names) in configurations {
            for name in names where byName[name] == nil {
                problems.append("configuration \(configuration) names unknown entity \(name)")
            }
        }
        Self.checkFetches(entities: entities, templates: fetchRequestTemplates, problems: &problems)
        guard problems.isEmpty else {
            throw NimbusError(.invalidModel, "the model is not valid: " + problems.joined(separator: "; "))
        }
        self.fetchRequestTemplates = fetchRequestTemplates
        self.entities = entities.sorted { $0.entityNumber < $1.entityNumber }
        self.entitiesByName = byName
        self.configurations = configurations
        self.versionIdentifiers = versionIdentifiers
        self.unsupportedFeatures = unsupportedFeatures
        var hashes: [String: Data] = [:]
        for entity in entities { hashes[entity.name] = entity.versionHash }
        self.entityVersionHashesByName = hashes
        var hasher = SHA256()
        for name in hashes.keys.sorted() {
            hasher.update(data: Data(name.utf8))
            hasher.update(data: hashes[name]!)
        }
        self.versionHash = Data(hasher.finalize())
        for entity in entities { entity.model = self }
        // Partial index predicates compile against the finished model.
        FetchIndexRules.checkPartialPredicates(of: self, problems: &problems)
        guard problems.isEmpty else {
            throw NimbusError(.invalidModel, "the model is not valid: " + problems.joined(separator: "; "))
        }
        ManagedClassRegistry.register(self)
    }

    /// Builds a model from a block of entities.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidModel`` naming every problem found.
    public convenience init(
        configurations: [String: [String]] = [:],
        versionIdentifiers: Set<String> = [],
        @ModelBuilder _ content: () -> [EntityDescription]
    ) throws {
        try self.init(entities: content(), configurations: configurations, versionIdentifiers: versionIdentifiers)
    }

    /// The entities of a configuration; all entities for nil or an unknown name.
    public func entities(forConfiguration name: String?) -> [EntityDescription] {
        guard let name, let names = configurations[name] else { return entities }
        let set = Set(names)
        return entities.filter { set.contains($0.name) }
    }

    /// Whether a store written with these entity hashes can be opened with this model.
    public func isConfiguration(_ configuration: String?, compatibleWithStoreHashes hashes: [String: Data]) -> Bool {
        let mine = entities(forConfiguration: configuration)
        guard mine.count == hashes.count else { return false }
        return mine.allSatisfy { hashes[$0.name] == $0.versionHash }
    }

    /// Whether a store written with these entity hashes holds this model's entities: all of
    /// them, or those of one of its configurations.
    public func isCompatible(withStoreHashes hashes: [String: Data]) -> Bool {
        ([nil] + configurations.keys.sorted()).contains { isConfiguration($0, compatibleWithStoreHashes: hashes) }
    }

    /// The entity with a name.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unknownEntity`` when there is none.
    public func entity(named name: String) throws -> EntityDescription {
        guard let entity = entitiesByName[name] else {
            let known = entitiesByName.keys.sorted().joined(separator: ", ")
            throw NimbusError(.unknownEntity, "no entity named \(name) in the model (entities: \(known))")
        }
        return entity
    }

    /// The entity with a store entity number (`Z_ENT`).
    func entity(number: Int) -> EntityDescription? {
        number >= 1 && number <= entities.count ? entities[number - 1] : nil
    }
}
