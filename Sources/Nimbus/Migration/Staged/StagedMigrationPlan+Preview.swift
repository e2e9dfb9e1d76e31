import Foundation

/// What one stage of a plan will do, entity by entity: `nimbus store migrate --dry-run`.
public struct MigrationStagePreview: Sendable, Hashable {
    /// What will happen to one entity's objects.
    public struct Entity: Sendable, Hashable {
        public var source: String?
        public var destination: String?
        /// `copy`, `transform`, `rename`, `add`, `remove`, `custom`, or `mapping` for a
        /// mapping model's entity mapping.
        public var action: String
        /// Rows of the source entity in the store (for later stages, carried from the
        /// stage before); nil when unknown.
        public var rows: Int?
        /// Rows that pass the mapping's filter, when it has one.
        public var migratedRows: Int?
        /// Whether ``rows`` is an upper bound: an earlier stage's filter or custom policy
        /// may drop objects, which only running it tells.
        public var rowsAreUpperBound = false
        /// Property changes and value expressions, one line each.
        public var details: [String]
    }

    public var label: String
    /// `lightweight`, or `custom` (with the mapping model's path when it has one).
    public var kind: String
    public var entities: [Entity]
}

extension StagedMigrationPlan {
    /// Describes what migrating the store at `url` would do, without changing it: each
    /// pending stage with, per entity, the action, the property changes and row counts.
    ///
    /// - Throws: as ``stages(forStoreAt:)``, and ``NimbusError/Code-swift.struct/modelMismatch``
    ///   when a lightweight stage cannot be inferred.
    public func preview(storeAt url: URL) throws -> [MigrationStagePreview] {
        let pending = try stages(forStoreAt: url)
        guard let first = pending.first else { return [] }
        var counts = try Self.rowCounts(at: url, model: first.sourceModel)
        var bounds: Set<String> = []
        var previews: [MigrationStagePreview] = []
        for (position, stage) in pending.enumerated() {
            var entities: [MigrationStagePreview.Entity] = []
            var next: [String: Int] = [:]
            var nextBounds: Set<String> = []
            if let mapping = stage.mappingModel {
                for entityMapping in mapping.entityMappings {
                    let rows = entityMapping.sourceEntityName.flatMap { counts[$0] }
                    var migrated: Int?
                    if let predicate = entityMapping.sourcePredicate, position == 0, let name = entityMapping.sourceEntityName {
                        migrated = try Self.count(at: url, model: stage.sourceModel, entity: name, predicate: predicate)
                    }
                    let sourceEntity = entityMapping.sourceEntityName.flatMap { stage.sourceModel.entitiesByName[$0] }
                    var details = (entityMapping.attributeMappings + entityMapping.relationshipMappings).map { property in
                        let line = "\(property.name) = \(property.valueExpression?.description ?? "default")"
                        // A property the source has, left at its default, loses its values.
                        guard property.valueExpression == nil, sourceEntity?.property(named: property.name) != nil else { return line }
                        return line + " (warning: the source's \(property.name) is not carried over)"
                    }
                    if let predicate = entityMapping.sourcePredicate { details.insert("only objects where \(predicate)", at: 0) }
                    if let policy = entityMapping.migrationPolicyName {
                        let registered = MigrationPolicies.policyType(named: policy) != nil
                        details.insert("custom policy \(policy)" + (registered ? "" : " (not registered: the migration will fail)"), at: 0)
                    }
                    entities.append(.init(source: entityMapping.sourceEntityName, destination: entityMapping.destinationEntityName,
                                          action: entityMapping.kind.rawValue, rows: rows, migratedRows: migrated, rowsAreUpperBound: false,
                                          details: details))
                    if let source = entityMapping.sourceEntityName, bounds.contains(source) { entities[entities.count - 1].rowsAreUpperBound = true }
                    if let destination = entityMapping.destinationEntityName, entityMapping.kind != .remove {
                        next[destination, default: 0] += migrated ?? rows ?? 0
                        let filtered = migrated == nil && (entityMapping.sourcePredicate != nil || entityMapping.migrationPolicyName != nil)
                        if filtered || entityMapping.sourceEntityName.map(bounds.contains) == true { nextBounds.insert(destination) }
                    }
                }
            } else {
                let inferred = try InferredMapping(from: stage.sourceModel, to: stage.destinationModel)
                for entity in stage.destinationModel.entities {
                    guard let oldName = inferred.entities.first(where: { $0.value == entity.name })?.key,
                          let old = stage.sourceModel.entitiesByName[oldName] else {
                        entities.append(.init(source: nil, destination: entity.name, action: "add", rows: nil, migratedRows: nil,
                                              rowsAreUpperBound: false, details: []))
                        continue
                    }
                    let details = Self.changes(from: old, to: entity, properties: inferred.properties[entity.name] ?? [:])
                    let action = oldName != entity.name ? "rename" : details.isEmpty ? "copy" : "transform"
                    entities.append(.init(source: oldName, destination: entity.name, action: action, rows: counts[oldName],
                                          migratedRows: nil, rowsAreUpperBound: bounds.contains(oldName), details: details))
                    next[entity.name] = counts[oldName]
                    if bounds.contains(oldName) { nextBounds.insert(entity.name) }
                }
                for name in inferred.removedEntities.sorted() {
                    entities.append(.init(source: name, destination: nil, action: "remove", rows: counts[name], migratedRows: nil,
                                          rowsAreUpperBound: bounds.contains(name), details: []))
                }
            }
            let kind = stage.mappingModel.map { "custom (mapping model \($0.source ?? "in code"))" }
                ?? (stage.willMigrate != nil || stage.didMigrate != nil ? "custom (inferred, with closures)" : "lightweight")
            previews.append(MigrationStagePreview(label: stage.label, kind: kind, entities: entities))
            counts = next
            bounds = nextBounds
        }
        return previews
    }

    private static func changes(from old: EntityDescription, to new: EntityDescription, properties: [String: String]) -> [String] {
        var lines: [String] = []
        for property in new.properties where !property.isTransient {
            guard let oldName = properties[property.name], let previous = old.property(named: oldName) else {
                let value = property.attribute?.defaultValue.map { " = " + PredicateFormatter.format(.constant($0)) } ?? ""
                let unfilled = property.attribute.map { !$0.isOptional && $0.defaultValue == nil } == true
                lines.append("added \(property.name)\(value)" + (unfilled ? " (required without a default: fails if \(new.name) has rows)" : ""))
                continue
            }
            if oldName != property.name { lines.append("renamed \(oldName) → \(property.name)") }
            switch (previous, property) {
            case let (.attribute(a), .attribute(b)):
                if a.type != b.type { lines.append("\(b.name): \(a.type.rawValue) → \(b.type.rawValue)") }
                if a.isOptional && !b.isOptional {
                    lines.append("\(b.name): now required" + (b.defaultValue.map { " (nil becomes " + PredicateFormatter.format(.constant($0)) + ")" } ?? ""))
                }
                if !a.isOptional && b.isOptional { lines.append("\(b.name): now optional") }
                if a.allowsExternalBinaryDataStorage != b.allowsExternalBinaryDataStorage {
                    lines.append("\(b.name): external storage \(b.allowsExternalBinaryDataStorage ? "on" : "off")")
                }
            case let (.relationship(a), .relationship(b)) where a.isToMany != b.isToMany:
                lines.append("\(b.name): \(a.isToMany ? "to-many" : "to-one") → \(b.isToMany ? "to-many" : "to-one")")
            default:
                break
            }
        }
        let kept = Set(properties.values)
        for property in old.properties where !property.isTransient && !kept.contains(property.name) {
            lines.append("removed \(property.name)")
        }
        return lines
    }

    private static func rowCounts(at url: URL, model: ManagedObjectModel) throws -> [String: Int] {
        try withContext(at: url, model: model) { context in
            var counts: [String: Int] = [:]
            // A store bound to a configuration counts that configuration's entities.
            let held = Set(context.persistentStoreCoordinator.persistentStores.flatMap { $0.entities.map(\.name) })
            for entity in model.entities where held.contains(entity.name) {
                var request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                counts[entity.name] = try context.count(for: request)
            }
            return counts
        }
    }

    private static func count(at url: URL, model: ManagedObjectModel, entity: String, predicate: String) throws -> Int {
        try withContext(at: url, model: model) { context in
            var request = FetchRequest<ManagedObject>(entityName: entity)
            request.includesSubentities = false
            request.predicate = try QueryPredicate(format: predicate)
            return try context.count(for: request)
        }
    }

    private static func withContext<T>(at url: URL, model: ManagedObjectModel, _ body: (ManagedObjectContext) throws -> T) throws -> T {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var description = PersistentStoreDescription(url: url)
        description.isReadOnly = true
        description.shouldMigrateStoreAutomatically = false
        let store = try coordinator.addPersistentStore(with: description)
        defer { try? coordinator.removePersistentStore(store) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        return try context.performAndWait { try body(context) }
    }
}
