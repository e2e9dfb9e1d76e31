import Synchronization

extension ManagedObjectModel {
    /// Builds a model from `@Managed` classes: each class is an entity, described by its
    /// declarations.
    ///
    /// A relationship that names no inverse takes the one relationship of its destination
    /// that points back and names no other inverse (as SwiftData infers it), and each
    /// inverse is completed on both sides. For example:
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(Post.self, Tag.self, configurations: ["Cloud": ["Post", "Tag"]])
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidModel`` naming every problem found.
    public convenience init(
        _ classes: any ManagedEntityClass.Type...,
        configurations: [String: [String]] = [:],
        versionIdentifiers: Set<String> = []
    ) throws {
        try self.init(classes: classes, configurations: configurations, versionIdentifiers: versionIdentifiers)
    }

    /// Builds a model from an array of `@Managed` classes; see ``init(_:configurations:versionIdentifiers:)``.
    public convenience init(
        classes: [any ManagedEntityClass.Type],
        configurations: [String: [String]] = [:],
        versionIdentifiers: Set<String> = []
    ) throws {
        let entities = ManagedInverseInference.completeInverses(classes.map { $0.managedEntityDescription() })
        try self.init(entities: entities, configurations: configurations, versionIdentifiers: versionIdentifiers)
    }

    /// A copy of the model whose entities use `@Managed` classes, matched by entity name: a
    /// model drawn in Xcode (or read from JSON) used through classes that `nimbus codegen`
    /// wrote for it.
    ///
    /// ```swift
    /// let model = try ManagedObjectModel(contentsOf: modelURL).withClasses(Post.self, Tag.self)
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidModel`` when a class declares a
    ///   property its entity lacks, or declares it as another kind.
    public func withClasses(_ classes: any ManagedEntityClass.Type...) throws -> ManagedObjectModel {
        try withClasses(classes)
    }

    /// `withClasses(_:)` (variadic) for classes in an array.
    public func withClasses(_ classes: [any ManagedEntityClass.Type]) throws -> ManagedObjectModel {
        try withClasses(Dictionary(classes.map { ($0.managedEntityName, $0 as ManagedObject.Type) }, uniquingKeysWith: { $1 }))
    }
}

/// Completes the inverses of relationships declared by classes.
enum ManagedInverseInference {
    static func completeInverses(_ entities: [EntityDescription]) -> [EntityDescription] {
        var relationships = Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0.declaredRelationships) })
        for entity in entities {
            for (position, relationship) in entity.declaredRelationships.enumerated() {
                guard let destination = relationships[relationship.destinationEntityName] else { continue }
                if let inverseName = relationships[entity.name]![position].inverseName {
                    // Name this relationship as the inverse's inverse when the inverse names none.
                    if let back = destination.firstIndex(where: { $0.name == inverseName }),
                       destination[back].inverseName == nil, destination[back].destinationEntityName == entity.name {
                        relationships[relationship.destinationEntityName]![back].inverseName = relationship.name
                    }
                    continue
                }
                // No inverse named: take the only candidate pointing back, if there is one.
                let candidates = destination.indices.filter {
                    destination[$0].destinationEntityName == entity.name
                        && (destination[$0].inverseName == nil || destination[$0].inverseName == relationship.name)
                        && !(relationship.destinationEntityName == entity.name && destination[$0].name == relationship.name)
                }
                guard candidates.count == 1 else { continue }
                relationships[entity.name]![position].inverseName = destination[candidates[0]].name
                relationships[relationship.destinationEntityName]![candidates[0]].inverseName = relationship.name
            }
        }
        return entities.map { e in
            EntityDescription(e.name, parent: e.superentityName, isAbstract: e.isAbstract, class: e.managedObjectClass,
                              className: e.managedObjectClassName, attributes: e.declaredAttributes,
                              relationships: relationships[e.name]!, fetchIndexes: e.fetchIndexes,
                              uniquenessConstraints: e.uniquenessConstraints, renamingIdentifier: e.renamingIdentifier,
                              versionHashModifier: e.versionHashModifier, userInfo: e.userInfo,
                              spotlightDisplayNameProperty: e.spotlightDisplayNameProperty)
        }
    }
}

/// Maps the slots of `@Managed` classes to property indexes, and remembers each class's
/// entity for ``ManagedObject/entity()``.
enum ManagedClassSlots {
    /// Resolves ``EntityDescription/typedSlots`` of every entity whose class is a
    /// ``ManagedEntityClass``, reporting declarations the entity does not match.
    static func resolve(_ entities: [EntityDescription], problems: inout [String]) {
        for entity in entities {
            guard let typed = entity.managedObjectClass as? any ManagedEntityClass.Type else { continue }
            var slots: [Int] = []
            var mismatches: [String] = []
            let declared = typed.managedEntityDescription()
            let declaredKinds = Dictionary((declared.declaredAttributes.map { ($0.name, PropertyKind(.attribute($0))) }
                + declared.declaredRelationships.map { ($0.name, PropertyKind(.relationship($0))) }), uniquingKeysWith: { $1 })
            for name in typed.managedSlotNames {
                guard let index = entity.propertyIndexes[name] else {
                    mismatches.append("\(name) is not a property of the entity")
                    slots.append(-1)
                    continue
                }
                if let kind = declaredKinds[name], kind != entity.propertyKinds[index] {
                    mismatches.append("\(name) is declared \(describe(kind)) but the entity has \(describe(entity.propertyKinds[index]))")
                }
                slots.append(index)
            }
            if !mismatches.isEmpty {
                problems.append("entity \(entity.name) does not match its class \(typed): " + mismatches.joined(separator: ", "))
            }
            entity.typedSlots = slots
        }
    }

    private static func describe(_ kind: PropertyKind) -> String {
        switch kind {
        case let .attribute(type): "an attribute of type \(type.rawValue)"
        case .transformable: "a transformable attribute"
        case .toOne: "a to-one relationship"
        case let .toMany(ordered): ordered ? "an ordered to-many relationship" : "a to-many relationship"
        }
    }
}

/// The entity of each `@Managed` class in the most recently built model that has it.
///
/// It holds the model weakly, not the entity: a weak reference gives its target a side table,
/// and every retain of an object with one takes the runtime's slow path, where entities are
/// retained with each copy of an object ID.
enum ManagedClassRegistry {
    private final class Entry: @unchecked Sendable {
        weak var model: ManagedObjectModel?
        let entityName: String
        init(_ model: ManagedObjectModel, _ entityName: String) {
            self.model = model
            self.entityName = entityName
        }
    }
    private static let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    /// Remembers the entities of a model just built whose classes are not `ManagedObject`.
    static func register(_ model: ManagedObjectModel) {
        entries.withLock { entries in
            for entity in model.entities where entity.managedObjectClass != ManagedObject.self {
                // A class shared by several entities (a parent's class used by a sub-entity)
                // keeps the topmost one.
                if let parent = entity.superentity, parent.managedObjectClass == entity.managedObjectClass { continue }
                entries[ObjectIdentifier(entity.managedObjectClass)] = Entry(model, entity.name)
            }
        }
    }

    static func entity(for managedClass: ManagedObject.Type) -> EntityDescription? {
        guard let entry = entries.withLock({ $0[ObjectIdentifier(managedClass)] }) else { return nil }
        return entry.model?.entitiesByName[entry.entityName]
    }
}
