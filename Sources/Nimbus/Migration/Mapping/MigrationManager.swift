import Foundation
import GRDB

/// Migrates a store to a new model through a ``MappingModel``, as Core Data's
/// `NSMigrationManager` does: the destination store is a new file, built from the source
/// in three passes over the entity mappings (create the destination objects, fill their
/// relationships, end each mapping), then validated and saved in one transaction. The
/// source store is only read, so a failure at any point leaves it as it was (the partial
/// destination file is removed).
///
/// For example:
///
/// ```swift
/// let manager = MigrationManager(sourceModel: v2, destinationModel: v3)
/// try manager.migrateStore(from: oldURL, to: newURL, mapping: try MappingModel(contentsOf: mappingURL))
/// ```
///
/// Persistent history that a registered consumer has not read is carried into the new file,
/// its changes naming the new objects (Core Data's migration manager drops all history);
/// whether the new store records history follows the source.
public final class MigrationManager: @unchecked Sendable {
    public let sourceModel: ManagedObjectModel
    public let destinationModel: ManagedObjectModel
    /// The mapping being run (set by ``migrateStore(from:to:mapping:)``).
    public private(set) var mappingModel = MappingModel(entityMappings: [])
    /// The context over the source store (read-only), while a migration runs.
    public private(set) var sourceContext: ManagedObjectContext?
    /// The context over the new store, while a migration runs.
    public private(set) var destinationContext: ManagedObjectContext?
    /// The entity mapping being run.
    public private(set) var currentEntityMapping: EntityMapping?
    /// Free-form state for custom policies, kept for one migration.
    public var userInfo: [String: Any] = [:]
    /// Called after each source object is mapped and after each pass: the fraction done
    /// (0…1) and what runs.
    public var progress: (@Sendable (Double, String) -> Void)?

    /// Destination objects by mapping name and source object ID.
    private var destinations: [String: [ManagedObjectID: [ManagedObject]]] = [:]
    /// Source object by destination object.
    private var sources: [ObjectIdentifier: ManagedObject] = [:]
    /// Destination objects each mapping created, in order.
    private var created: [String: [ManagedObject]] = [:]
    private var policies: [String: any EntityMigrationPolicy] = [:]

    /// Creates a manager between two models.
    public init(sourceModel: ManagedObjectModel, destinationModel: ManagedObjectModel) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
    }

    /// Migrates the store at `sourceURL` into a new store at `destinationURL`.
    ///
    /// - Parameters:
    ///   - sourceURL: A store written with ``sourceModel``; it is only read.
    ///   - destinationURL: Where the new store goes; no file may be there.
    ///   - mapping: How entities and properties map.
    /// - Throws: ``NimbusError/Code-swift.struct/migrationFailed`` naming the mapping and
    ///   object that failed (a validation failure of the new objects too); nothing is left at
    ///   `destinationURL` then.
    public func migrateStore(from sourceURL: URL, to destinationURL: URL, mapping: MappingModel) throws {
        guard !FileManager.default.fileExists(atPath: destinationURL.path) else {
            throw NimbusError(.invalidArgument, "a migration's destination \(destinationURL.path) already exists")
        }
        mappingModel = mapping
        try check(mapping)
        try refuseAppleMirroredStore(sourceURL)
        var sourceDescription = PersistentStoreDescription(url: sourceURL)
        sourceDescription.isReadOnly = true
        sourceDescription.shouldMigrateStoreAutomatically = false
        let sourceCoordinator = PersistentStoreCoordinator(managedObjectModel: sourceModel)
        let sourceStore = try sourceCoordinator.addPersistentStore(with: sourceDescription)
        defer { try? sourceCoordinator.removePersistentStore(sourceStore) }
        var destinationDescription = PersistentStoreDescription(url: destinationURL)
        // A store bound to a configuration becomes the same configuration's store.
        if let configuration = sourceStore.configurationName, destinationModel.configurations[configuration] != nil {
            destinationDescription.configuration = configuration
        }
        destinationDescription.persistentHistoryTracking = sourceStore.metadata["NSPersistentHistoryTrackingKey"] as? Bool == true
        destinationDescription.journalMode = .delete
        let destinationCoordinator = PersistentStoreCoordinator(managedObjectModel: destinationModel)
        var succeeded = false
        defer { if !succeeded { StoreFiles.remove(destinationURL) } }
        let destinationStore = try destinationCoordinator.addPersistentStore(with: destinationDescription)
        defer { try? destinationCoordinator.removePersistentStore(destinationStore) }
        let source = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: sourceCoordinator)
        let destination = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: destinationCoordinator)
        destination.transactionAuthor = "migration"
        sourceContext = source
        destinationContext = destination
        defer { reset() }
        try destination.performAndWait {
            try source.performAndWait {
                try run(source: source, destination: destination)
                // Sync metadata follows its objects into the new file.
                try carryTables(from: sourceStore, sourceURL: sourceURL, into: destinationStore)
                // So does history a registered consumer has not read.
                try carryUnreadHistory(from: sourceStore, into: destinationStore)
            }
        }
        succeeded = true
    }

    private func reset() {
        sourceContext = nil
        destinationContext = nil
        currentEntityMapping = nil
        destinations = [:]
        sources = [:]
        created = [:]
        policies = [:]
    }

    /// Refuses, before any work, mappings that name unknown entities or policies.
    private func check(_ mapping: MappingModel) throws {
        var problems: [String] = []
        for entityMapping in mapping.entityMappings {
            if let name = entityMapping.sourceEntityName, sourceModel.entitiesByName[name] == nil, entityMapping.kind != .add {
                problems.append("\(entityMapping.name): the source model has no entity \(name)")
            }
            if let name = entityMapping.destinationEntityName, destinationModel.entitiesByName[name] == nil, entityMapping.kind != .remove {
                problems.append("\(entityMapping.name): the destination model has no entity \(name)")
            }
            if let policy = entityMapping.migrationPolicyName, MigrationPolicies.policyType(named: policy) == nil {
                problems.append("\(entityMapping.name): no migration policy is registered as \(policy); call MigrationPolicies.register(_:as:)")
            }
            if let predicate = entityMapping.sourcePredicate {
                do { _ = try QueryPredicate(format: predicate) } catch let error as NimbusError {
                    problems.append("\(entityMapping.name): the filter predicate \"\(predicate)\" is malformed: \(error.message)")
                }
            }
        }
        guard problems.isEmpty else {
            throw NimbusError(.migrationFailed, "the mapping model\(mapping.source.map { " \($0)" } ?? "") cannot run: " + problems.joined(separator: "; "))
        }
    }

    /// A store mirrored by Apple's Core Data (`ANSCK*` tables) keeps CloudKit metadata
    /// keyed by its rows, which Nimbus cannot carry into a new file: as Core Data's CloudKit
    /// stores, it migrates by inferred (lightweight) steps only. Nimbus's own sync metadata
    /// is carried (see ``MigratedKeys``).
    private func refuseAppleMirroredStore(_ url: URL) throws {
        let mirrored: Bool
        do {
            let queue = try StoreConnection.queue(path: url.path, readOnly: true)
            defer { try? queue.close() }
            mirrored = try queue.read { db in
                try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name LIKE 'ANSCK%')") ?? false
            }
        } catch let error as DatabaseError {
            throw NimbusError.from(error, path: url.path)
        }
        if mirrored {
            throw NimbusError(.migrationFailed, "the store at \(url.path) is mirrored to CloudKit by Apple's Core Data; a mapping model would lose its CloudKit metadata, so it migrates by inferred (lightweight) steps only, as Core Data's CloudKit stores do")
        }
    }

    private func policy(for mapping: EntityMapping) -> any EntityMigrationPolicy {
        if let policy = policies[mapping.name] { return policy }
        let type = mapping.migrationPolicyName.flatMap(MigrationPolicies.policyType(named:)) ?? DefaultEntityMigrationPolicy.self
        let policy = type.init()
        policies[mapping.name] = policy
        return policy
    }

    private func run(source: ManagedObjectContext, destination: ManagedObjectContext) throws {
        var work: [(EntityMapping, [ManagedObject])] = []
        var total = 0
        for mapping in mappingModel.entityMappings {
            // Add and remove mappings migrate no objects (their policy's begin and end still run).
            guard mapping.kind != .add, mapping.kind != .remove, let name = mapping.sourceEntityName,
                  sourceModel.entitiesByName[name] != nil else { work.append((mapping, [])); continue }
            var request = FetchRequest<ManagedObject>(entityName: name)
            request.includesSubentities = false
            if let predicate = mapping.sourcePredicate { request.predicate = try QueryPredicate(format: predicate) }
            let objects = try source.fetch(request)
            work.append((mapping, objects))
            total += objects.count
        }
        var done = 0
        func report(_ what: String) { progress?(total == 0 ? 1 : min(1, Double(done) / Double(total * 2)), what) }
        for (mapping, objects) in work {
            try step(mapping) { try policy(for: mapping).beginEntityMapping(mapping, manager: self) }
            for object in objects {
                try step(mapping, object) { try policy(for: mapping).createDestinationInstances(for: object, mapping: mapping, manager: self) }
                done += 1
                report("creating objects of \(mapping.name)")
            }
        }
        for (mapping, objects) in work {
            for object in created[mapping.name] ?? [] {
                try step(mapping, sources[ObjectIdentifier(object)]) { try policy(for: mapping).createRelationships(for: object, mapping: mapping, manager: self) }
            }
            done += objects.count
            report("relating objects of \(mapping.name)")
        }
        for (mapping, _) in work {
            try step(mapping) { try policy(for: mapping).endEntityMapping(mapping, manager: self) }
        }
        do {
            try destination.save()
        } catch let error as NimbusError {
            var failure = NimbusError(.migrationFailed, "the migrated objects do not satisfy the new model: \(error.message)", underlying: error)
            failure.validationFailures = error.validationFailures
            throw failure
        }
        report("saved")
    }

    /// Runs one hook, naming the mapping and object when it fails.
    private func step(_ mapping: EntityMapping, _ object: ManagedObject? = nil, _ body: () throws -> Void) throws {
        currentEntityMapping = mapping
        do { try body() } catch let error as NimbusError where error.code == .migrationFailed {
            throw error
        } catch {
            let what = object.map { " for source object \($0.objectID)" } ?? ""
            let message = (error as? NimbusError)?.message ?? "\(error)"
            throw NimbusError(.migrationFailed, "entity mapping \(mapping.name) failed\(what): \(message)", underlying: error)
        }
    }

    // MARK: - The default behavior, for policies to call

    /// Creates the destination object of a source object and sets its attributes from the
    /// mapping's attribute mappings (Core Data's default `createDestinationInstances`).
    @discardableResult
    public func createDestinationInstance(for source: ManagedObject, mapping: EntityMapping) throws -> ManagedObject {
        guard let context = destinationContext, let entityName = mapping.destinationEntityName else {
            throw NimbusError(.migrationFailed, "\(mapping.name) has no destination entity")
        }
        let object = try context.insertNewObject(forEntityName: entityName)
        let attributes = mapping.kind == .copy && mapping.attributeMappings.isEmpty
            ? object.entity.properties.compactMap { $0.attribute }.filter { !$0.isTransient }.map { PropertyMapping($0.name, .keyPath(variable: "source", [$0.name])) }
            : mapping.attributeMappings
        for property in attributes {
            guard let expression = property.valueExpression else { continue }
            if property.isAutomatic, let first = expression.sourceKeyPaths.first?.first, source.entity.property(named: first) == nil { continue }
            let value = try evaluate(expression, source: source, destination: object, mapping: mapping)
            try set(value, forKey: property.name, on: object)
        }
        associate(source: source, destination: object, mapping: mapping)
        return object
    }

    /// Fills a destination object's relationships from the mapping's relationship mappings
    /// (Core Data's default `createRelationships`).
    public func createRelationships(for destination: ManagedObject, mapping: EntityMapping) throws {
        let source = sources[ObjectIdentifier(destination)]
        // A copy mapping without property mappings carries every relationship the source has.
        let relationships = mapping.kind == .copy && mapping.relationshipMappings.isEmpty
            ? destination.entity.properties.compactMap(\.relationship).filter { !$0.isTransient }.map { relationship in
                var automatic = PropertyMapping(relationship.name, .function(
                    receiver: .keyPath(variable: "manager", []), selector: "destinationInstancesForEntityMappingNamed:sourceInstances:",
                    arguments: [.constant(.string("")), .keyPath(variable: "source", [relationship.name])]))
                automatic.isAutomatic = true
                return automatic
            }
            : mapping.relationshipMappings
        for property in relationships {
            guard let expression = property.valueExpression else { continue }
            if property.isAutomatic, let first = expression.sourceKeyPaths.first?.first, source?.entity.property(named: first) == nil { continue }
            let value = try evaluate(expression, source: source, destination: destination, mapping: mapping)
            try set(value, forKey: property.name, on: destination)
        }
    }

    /// The destination objects a mapping created, in order.
    func createdObjects(by mapping: EntityMapping) -> [ManagedObject] { created[mapping.name] ?? [] }

    /// The source object a destination object was made from.
    func sourceObject(of destination: ManagedObject) -> ManagedObject? { sources[ObjectIdentifier(destination)] }

    /// Records that `destination` was made from `source` by `mapping`.
    public func associate(source: ManagedObject, destination: ManagedObject, mapping: EntityMapping) {
        destinations[mapping.name, default: [:]][source.objectID, default: []].append(destination)
        sources[ObjectIdentifier(destination)] = source
        created[mapping.name, default: []].append(destination)
    }

    /// The destination objects made from source objects: by one mapping, or (`nil` or
    /// empty name) by any mapping.
    public func destinationInstances(forEntityMappingNamed name: String?, sourceInstances: [ManagedObject]) -> [ManagedObject] {
        sourceInstances.flatMap { source -> [ManagedObject] in
            if let name, !name.isEmpty { return destinations[name]?[source.objectID] ?? [] }
            return destinations.values.flatMap { $0[source.objectID] ?? [] }
        }
    }

    /// The source objects destination objects were made from.
    public func sourceInstances(forEntityMappingNamed name: String?, destinationInstances: [ManagedObject]) -> [ManagedObject] {
        destinationInstances.compactMap { sources[ObjectIdentifier($0)] }
    }

    /// Sets a computed value: attributes converted to their type, relationships from
    /// destination objects.
    private func set(_ value: Any?, forKey key: String, on object: ManagedObject) throws {
        guard let property = object.entity.property(named: key) else {
            throw NimbusError(.migrationFailed, "the destination entity \(object.entity.name) has no property \(key)")
        }
        switch property {
        case let .attribute(attribute):
            if let data = value as? Data, attribute.type == .transformable || attribute.type == .binaryData {
                try object.setValidatedValue(PropertyValue.data(data), forKey: key)
            } else if let number = value as? Bool, attribute.type.isInteger || attribute.type == .double || attribute.type == .float {
                try object.setValidatedValue(number ? 1 : 0, forKey: key)
            } else {
                try object.setValidatedValue(value, forKey: key)
            }
        case let .relationship(relationship):
            let objects: [ManagedObject] = switch value {
            case nil: []
            case let one as ManagedObject: [one]
            case let many as [ManagedObject]: many
            case let many as Set<ManagedObject>: Array(many)
            default: throw NimbusError(.typeMismatch, "\(object.entity.name).\(key) is a relationship; its expression gave \(type(of: value!))")
            }
            if relationship.isToMany {
                try object.setValidatedValue(objects, forKey: key)
            } else {
                guard objects.count <= 1 else {
                    throw NimbusError(.migrationFailed, "\(object.entity.name).\(key) is to-one but its expression gave \(objects.count) objects")
                }
                try object.setValidatedValue(objects.first, forKey: key)
            }
        }
    }
}

/// The files of a store: the database, its journal files, and its support folder.
enum StoreFiles {
    static func companions(of url: URL) -> [URL] {
        ["-wal", "-shm", "-journal"].map { URL(fileURLWithPath: url.path + $0) }
    }

    /// Removes a store and everything beside it that belongs to it.
    static func remove(_ url: URL) {
        for file in [url] + companions(of: url) + [ExternalStorage.folder(for: url)] {
            try? FileManager.default.removeItem(at: file)
        }
    }
}
