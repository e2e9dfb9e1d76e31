import Foundation
import GRDB

extension ManagedObjectContext {
    /// How many times a save resolves conflicts and tries again before giving up (another
    /// writer may change rows again between two attempts).
    static let saveAttempts = 8

    /// After a failed write: lets the merge policy resolve the conflicts the error names.
    /// Returns true when the save should try again; false when the error is not a conflict.
    ///
    /// - Throws: the policy's error (``MergePolicy/error`` throws every conflict listed).
    func resolveConflicts(after error: NimbusError) throws -> Bool {
        if error.code == .mergeConflict, !error.conflictingObjectIDs.isEmpty {
            try resolveOptimisticLockingConflicts(error.conflictingObjectIDs.compactMap { registry[$0] })
            return true
        }
        if error.isUniquenessViolation {
            let conflicts = try constraintConflicts()
            guard !conflicts.isEmpty else { return false }
            try mergePolicy.resolve(constraintConflicts: conflicts, in: self)
            return true
        }
        return false
    }

    /// Objects changed here whose rows another context or process deleted: resolved by the
    /// merge policy before anything is written (deletion wins unless the policy is `error`).
    func resolveEditsOfDeletedRows() throws {
        let edited = changedSet.filter { $0.flags.isDeletedInStore && $0.flags.isChanged && !$0.flags.isDeleted && !$0.flags.isInserted }
        guard !edited.isEmpty else { return }
        try resolveOptimisticLockingConflicts(edited.sorted { $0.objectID < $1.objectID })
    }

    private func resolveOptimisticLockingConflicts(_ objects: [ManagedObject]) throws {
        var conflicts: [MergeConflict] = []
        var stored: [ManagedObjectID: RowSnapshot] = [:]
        persistentStoreCoordinator.rowCache.remove(objects.map(\.objectID))
        for object in objects {
            let id = object.objectID
            guard let values = object.values else { continue }
            let snapshot = object.flags.isDeletedInStore ? nil : try rowSnapshot(for: id)
            if let snapshot { stored[id] = snapshot }
            conflicts.append(MergeConflict(
                objectID: id, oldVersionNumber: object.committed?.version ?? 0, newVersionNumber: snapshot?.version ?? 0,
                cachedSnapshot: object.entity.namedSnapshot(object.committed?.values ?? values),
                objectSnapshot: object.entity.namedSnapshot(values),
                persistedSnapshot: snapshot.map { object.entity.namedSnapshot($0.values) }))
        }
        guard !conflicts.isEmpty else { return }
        try mergePolicy.resolve(optimisticLockingConflicts: conflicts, in: self)
        // The next attempt starts from the store's current row: its version is the one expected.
        for object in objects {
            guard object.managedObjectContext === self || object.flags.isDeletedInStore else { continue }
            if let snapshot = stored[object.objectID] {
                object.committed = snapshot
                if !object.flags.isChanged { markChanged(object) }
            } else if !object.flags.isDeleted {
                // Deleted in the store: the deletion wins.
                changedSet.remove(object)
                unregister(object)
                object.markInaccessible()
                object.flags.isChanged = false
                extras.eventInvalidated.append(object)
            }
        }
    }

    // MARK: Uniqueness constraints

    /// New and changed objects that share a uniqueness constraint's values with each other
    /// or with a stored row (read fresh from the store).
    func constraintConflicts() throws -> [ConstraintConflict] {
        struct Key: Hashable {
            var declaring: ObjectIdentifier
            var constraint: [String]
            var values: [PropertyValue]
        }
        var groups: [Key: [ManagedObject]] = [:]
        var order: [Key] = []
        var declaringEntities: [ObjectIdentifier: EntityDescription] = [:]
        let inserted = pendingInsertions()
        let updated = changedSet.filter { !$0.flags.isInserted && !$0.flags.isDeleted && !$0.flags.isDeletedInStore }.sorted { $0.objectID < $1.objectID }
        for object in inserted + updated {
            guard let values = object.values else { continue }
            var entity: EntityDescription? = object.entity
            while let declaring = entity {
                for constraint in declaring.uniquenessConstraints {
                    let indexes = constraint.compactMap { object.entity.propertyIndexes[$0] }
                    guard indexes.count == constraint.count else { continue }
                    let key = Key(declaring: ObjectIdentifier(declaring), constraint: constraint, values: indexes.map { values[$0] })
                    // SQLite lets NULLs repeat under a unique index.
                    if key.values.contains(where: \.isNull) { continue }
                    declaringEntities[key.declaring] = declaring
                    if groups[key] == nil { order.append(key) }
                    groups[key, default: []].append(object)
                }
                entity = declaring.superentity
            }
        }
        // Stored rows this save changes or deletes hold their old values only until it
        // commits: a key moved from one object to a new one in one save is no conflict.
        let replaced = Set(changedSet.filter { !$0.flags.isInserted && !$0.objectID.isTemporaryID }.map(\.objectID))
        var conflicts: [ConstraintConflict] = []
        for key in order {
            let objects = groups[key]!
            let declaring = declaringEntities[key.declaring]!
            let own = Set(objects.filter { !$0.objectID.isTemporaryID }.map(\.objectID)).union(replaced)
            let target = try saveStore(for: objects[0])
            let row = try target.database.read { db in
                try target.database.row(matching: key.constraint, values: key.values, in: declaring, excluding: own, db)
            }
            guard objects.count > 1 || row != nil else { continue }
            let values = Dictionary(uniqueKeysWithValues: zip(key.constraint, key.values))
            conflicts.append(ConstraintConflict(
                constraint: key.constraint, constraintValues: values, databaseObjectID: row?.id,
                databaseSnapshot: row.map { $0.id.entity.namedSnapshot($0.snapshot.values) },
                conflictingObjectIDs: objects.map(\.objectID),
                conflictingSnapshots: objects.map { $0.entity.namedSnapshot($0.values ?? []) }))
        }
        return conflicts
    }

    /// The store a save writes an object to.
    private func saveStore(for object: ManagedObject) throws -> PersistentStore {
        guard object.objectID.isTemporaryID else { return try persistentStoreCoordinator.store(for: object.objectID) }
        if let identifier = assignedStores[object.objectID], let store = persistentStoreCoordinator.persistentStore(identifier: identifier) {
            return store
        }
        return try persistentStoreCoordinator.defaultStore(for: object.entity)
    }

    /// Makes the objects of a constraint conflict one object (see
    /// ``MergePolicy/resolve(constraintConflicts:in:)``). Objects that are not new keep the
    /// conflict unresolved: the next attempt reports it again.
    ///
    /// - Throws: the error of a read of the stored row (its values, version or to-many
    ///   members) that fails; the conflict's objects are then left as they were.
    func unifyDuplicates(_ conflict: ConstraintConflict, objectWins: Bool) throws {
        let objects = conflict.conflictingObjectIDs.compactMap { registeredObject(for: $0) }.filter { $0.flags.isInserted }
        guard let first = objects.first else { return }
        var map: [ManagedObjectID: ManagedObjectID] = [:]
        let survivor: ManagedObject
        var losers = Array(objects.dropFirst())
        if let databaseID = conflict.databaseObjectID, let stored = conflict.databaseSnapshot {
            if let registered = registry[databaseID] {
                survivor = registered
                if survivor.values == nil { try survivor.fireFault() }
                losers = objects
            } else {
                survivor = first
                try adoptStoredRow(first, id: databaseID, storedValues: stored)
            }
            guard var values = survivor.values else { return }
            if !objectWins {
                for (index, property) in survivor.entity.properties.enumerated() where property.relationship?.isToMany != true && !property.isTransient {
                    values[index] = stored[property.name] ?? .null
                }
            }
            survivor.values = values
        } else {
            survivor = first
        }
        guard var values = survivor.values else { return }
        for loser in losers {
            guard let loserValues = loser.values else { continue }
            for (index, property) in survivor.entity.properties.enumerated() where !property.isTransient {
                guard let loserIndex = loser.entity.propertyIndexes[property.name] else { continue }
                let value = loserValues[loserIndex]
                if property.relationship?.isToMany == true {
                    // To-many relationships gain every duplicate's members.
                    if case let .objects(theirs) = value {
                        let ours: [ManagedObjectID] = if case let .objects(ids) = values[index] { ids } else { [] }
                        values[index] = .objects(ours + theirs.filter { !ours.contains($0) })
                    }
                } else if objectWins && !value.isNull {
                    values[index] = value
                }
            }
            map[loser.objectID] = survivor.objectID
            insertedSet.remove(loser)
            unregister(loser)
            loser.managedObjectContext = nil
            loser.flags = .init()
        }
        survivor.values = values
        if !survivor.flags.isInserted { markChanged(survivor) }
        if !map.isEmpty {
            permanentIDsForTemporary.merge(map) { $1 }
            remapReferences(map)
        }
    }

    /// A new object becomes the stored row it duplicates: it takes the row's ID and version
    /// (its values stay, to be written as an update), and references follow it. The row's
    /// version and to-many members are read first: when a read fails, its error is thrown and
    /// the object is left as it was (never merged as if the row had no members).
    private func adoptStoredRow(_ object: ManagedObject, id: ManagedObjectID, storedValues: [String: PropertyValue]) throws {
        let version = try storedVersion(of: id)
        let storedMembers = try object.entity.toManyIndexes.map { index in
            try persistentStoreCoordinator.destinations(of: id, relationshipIndex: index, context: self)
        }
        let temporary = object.objectID
        var committedValues = object.entity.properties.map { storedValues[$0.name] ?? .null }
        for index in object.entity.toManyIndexes { committedValues[index] = .null }
        registry.changeID(from: temporary, to: id)
        object.flags.isInserted = false
        insertedSet.remove(object)
        object.committed = RowSnapshot(version: version, values: committedValues)
        // Stored members of to-many relationships stay; the new object's are added.
        for (index, stored) in zip(object.entity.toManyIndexes, storedMembers) {
            let current: [ManagedObjectID] = if case let .objects(ids) = object.values?[index] { ids } else { [] }
            object.committedToMany[index] = stored
            object.values?[index] = .objects(stored + current.filter { !stored.contains($0) })
            object.loadedToMany.insert(index)
        }
        markChanged(object)
        let map = [temporary: id]
        permanentIDsForTemporary.merge(map) { $1 }
        remapReferences(map)
    }

    /// The stored row's version (1 when the row is gone: the save then reports the conflict).
    private func storedVersion(of id: ManagedObjectID) throws -> Int64 {
        persistentStoreCoordinator.rowCache.remove([id])
        return try rowSnapshot(for: id)?.version ?? 1
    }
}

extension EntityDescription {
    /// Stored attributes and to-one relationships by name, from a values array.
    func namedSnapshot(_ values: [PropertyValue]) -> [String: PropertyValue] {
        var result: [String: PropertyValue] = [:]
        for (index, property) in properties.enumerated() where property.relationship?.isToMany != true && !property.isTransient && index < values.count {
            result[property.name] = values[index]
        }
        return result
    }
}

extension NimbusError {
    /// Whether SQLite refused a write because of a `UNIQUE` index.
    var isUniquenessViolation: Bool {
        guard let error = underlying as? DatabaseError else { return false }
        return error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
    }
}

extension SQLiteDatabase {
    /// The row of `entity`'s hierarchy whose constrained properties hold `values`, other
    /// than the rows in `excluded`.
    func row(matching constraint: [String], values: [PropertyValue], in entity: EntityDescription,
             excluding excluded: Set<ManagedObjectID>, _ db: Database) throws -> (id: ManagedObjectID, snapshot: RowSnapshot)? {
        let mapping = schema.mapping(for: entity)
        var conditions = ["Z_ENT IN (\(entity.entityNumbersInHierarchy.map(String.init).joined(separator: ",")))"]
        var arguments: [DatabaseValue] = []
        for (name, value) in zip(constraint, values) {
            guard let index = entity.propertyIndexes[name] else { return nil }
            switch mapping.storage[index] {
            case let .column(column), let .foreignKey(column, _):
                conditions.append("\(column.quotedDatabaseIdentifier) = ?")
                arguments.append(value.databaseValue)
            default:
                return nil
            }
        }
        let sql = "SELECT Z_PK, Z_ENT FROM \(mapping.table.quotedDatabaseIdentifier) WHERE \(conditions.joined(separator: " AND "))"
        for row in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)) {
            guard let found = model.entity(number: row[1]) else { continue }
            let id = ManagedObjectID(entity: found, storeKey: storeKey, primaryKey: row[0])
            if excluded.contains(id) { continue }
            if let snapshot = try snapshot(for: id, db) { return (id, snapshot) }
        }
        return nil
    }
}
