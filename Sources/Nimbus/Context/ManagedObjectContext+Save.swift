import Foundation

extension ManagedObjectContext {
    /// Saves every pending insert, update and delete in one transaction per store.
    ///
    /// Delete rules are applied and every changed object is validated first; when anything
    /// fails, nothing is written and the error lists every failing object and property.
    ///
    /// - Throws: ``NimbusError`` with ``NimbusError/Code-swift.struct/validationFailed``,
    ///   ``NimbusError/Code-swift.struct/deleteDenied``,
    ///   ``NimbusError/Code-swift.struct/mergeConflict`` (the store changed since the objects
    ///   were read), ``NimbusError/Code-swift.struct/readOnlyStore`` or a SQLite error.
    public func save() throws {
        try processPendingChanges()
        guard hasChanges else { return }
        for object in insertedSet { object.willSave() }
        for object in changedSet where !object.flags.isInserted { object.willSave() }
        for object in deletedSet where !object.flags.isInserted && !object.flags.isChanged { object.willSave() }
        try processPendingChanges()
        try validateForSave()

        let inserted = insertedSet.filter { !$0.flags.isDeleted }
        let deleted = deletedSet.filter { !$0.flags.isInserted }
        let updated = changedSet.filter { !$0.flags.isInserted && !$0.flags.isDeleted && !$0.flags.isDeletedInStore && $0.hasPersistentChangedValues }
        if let parent {
            saveIntoParent(parent, inserted: inserted, updated: updated, deleted: deleted)
            didSave(inserted: inserted, updated: updated, deleted: deleted, permanentIDs: [:], versions: [:])
            return
        }

        var requests: [String: (PersistentStore, SaveRequest)] = [:]
        var defaultStores: [ObjectIdentifier: PersistentStore] = [:]
        var storesByIdentifier: [String: PersistentStore] = [:]
        let schema = managedObjectModel.schema
        func request(for object: ManagedObject) throws -> String {
            let store: PersistentStore
            if object.objectID.isTemporaryID {
                if !assignedStores.isEmpty, let assigned = assignedStores[object.objectID].flatMap({ persistentStoreCoordinator.persistentStore(identifier: $0) }) {
                    store = assigned
                } else if let known = defaultStores[ObjectIdentifier(object.entity)] {
                    store = known
                } else {
                    store = try persistentStoreCoordinator.defaultStore(for: object.entity)
                    defaultStores[ObjectIdentifier(object.entity)] = store
                }
            } else if let known = storesByIdentifier[object.objectID.storeIdentifier] {
                store = known
            } else {
                store = try persistentStoreCoordinator.store(for: object.objectID)
                storesByIdentifier[object.objectID.storeIdentifier] = store
            }
            guard !store.isReadOnly else {
                throw NimbusError(.readOnlyStore, "cannot save \(object.objectID): the store \(store.url?.path ?? store.identifier) is read-only")
            }
            if requests[store.identifier] == nil {
                var request = SaveRequest()
                request.author = transactionAuthor
                request.contextName = name
                requests[store.identifier] = (store, request)
            }
            return store.identifier
        }
        for object in inserted.sorted(by: { $0.insertionSequence < $1.insertionSequence }) {
            let key = try request(for: object)
            requests[key]!.1.inserts.append(.init(id: object.objectID, values: object.values!))
            collectRelationshipChanges(of: object, schema: schema, into: &requests[key]!.1)
        }
        for object in updated.sorted(by: { $0.objectID < $1.objectID }) {
            let key = try request(for: object)
            let changes = object.changedPropertyIndexes()
                .filter { object.entity.properties[$0].relationship?.isToMany != true }
                .map { (index: $0, value: object.values![$0]) }
            requests[key]!.1.updates.append(.init(id: object.objectID, expectedVersion: object.committed?.version ?? 1, changes: changes,
                                                  changedProperties: object.changedPropertyIndexes()))
            collectRelationshipChanges(of: object, schema: schema, into: &requests[key]!.1)
        }
        for object in deleted.sorted(by: { $0.objectID < $1.objectID }) {
            let key = try request(for: object)
            requests[key]!.1.deletes.append(.init(id: object.objectID, tombstone: object.tombstone()))
        }

        var permanentIDs: [ManagedObjectID: ManagedObjectID] = [:]
        var versions: [ManagedObjectID: Int64] = [:]
        for (store, request) in requests.values.sorted(by: { $0.0.identifier < $1.0.identifier }) where !request.isEmpty {
            let result = try store.database.save(request, hooks: store.saveHooks)
            permanentIDs.merge(result.permanentIDs) { a, _ in a }
            versions.merge(result.versions) { a, _ in a }
        }
        didSave(inserted: inserted, updated: updated, deleted: deleted, permanentIDs: permanentIDs, versions: versions)
    }

    /// Adds join-table rows and order positions for an object's changed to-many relationships.
    private func collectRelationshipChanges(of object: ManagedObject, schema: StoreSchema, into request: inout SaveRequest) {
        guard !object.entity.toManyIndexes.isEmpty else { return }
        let mapping = schema.mapping(for: object.entity)
        for index in object.entity.toManyIndexes where object.loadedToMany.contains(index) {
            guard case let .objects(current) = object.values![index] else { continue }
            let old = object.committedToMany[index] ?? []
            switch mapping.storage[index] {
            case let .joinTable(join, sourceColumn, _, orderColumn) where sourceColumn == join.firstColumn:
                let oldSet = Set(old)
                let currentSet = Set(current)
                for removed in old where !currentSet.contains(removed) {
                    request.joinChanges.append(.init(table: join, first: object.objectID, second: removed, order: nil, isInsert: false))
                }
                for (position, added) in current.enumerated() where !oldSet.contains(added) || (orderColumn != nil && old != current) {
                    request.joinChanges.append(.init(table: join, first: object.objectID, second: added, order: position + 1, isInsert: true))
                }
            case let .inverseForeignKey(table, _, _, orderColumn?) where old != current:
                for (position, member) in current.enumerated() {
                    request.orderChanges.append(.init(table: table, column: orderColumn, id: member, position: position + 1))
                }
            default:
                continue
            }
        }
    }

    private func didSave(inserted: Set<ManagedObject>, updated: Set<ManagedObject>, deleted: Set<ManagedObject>,
                         permanentIDs: [ManagedObjectID: ManagedObjectID], versions: [ManagedObjectID: Int64]) {
        // Only objects changed in this save can point at the new objects' temporary IDs.
        remapIDs(permanentIDs, among: Array(insertedSet) + Array(changedSet))
        propagatePermanentIDs(permanentIDs)
        for (old, _) in permanentIDs { assignedStores[old] = nil }
        var notification = SaveNotification()
        var saved: [(ManagedObjectID, RowSnapshot)] = []
        let observed = persistentStoreCoordinator.hasMergeObservers
        // Rows of small saves go to the shared cache; a bulk import would only churn it.
        let cachesNewRows = inserted.count <= RowCache.newRowsPerSave
        for object in [inserted, updated].joined() {
            var values = object.values!
            for index in object.entity.toManyIndexes { values[index] = .null }
            let isNew = object.flags.isInserted
            let version = isNew ? 1 : versions[object.objectID] ?? (object.committed?.version ?? 0) + 1
            let snapshot = RowSnapshot(version: version, values: values)
            object.committed = snapshot
            for index in object.loadedToMany {
                if case let .objects(ids) = object.values![index] { object.committedToMany[index] = ids }
            }
            object.flags.isInserted = false
            object.flags.isChanged = false
            if !isNew || cachesNewRows { saved.append((object.objectID, snapshot)) }
            if observed { notification.snapshots[object.objectID] = snapshot }
        }
        notification.insertedObjectIDs = Set(inserted.map(\.objectID))
        notification.updatedObjectIDs = Set(updated.map(\.objectID))
        notification.deletedObjectIDs = Set(deleted.map(\.objectID))
        for object in deletedSet {
            unregister(object)
            object.flags.isDeleted = false
            object.flags.isInserted = false
        }
        // Objects touched but not really changed (or changed only in to-many sides) are clean now.
        for object in changedSet {
            object.flags.isChanged = false
            for index in object.loadedToMany {
                if case let .objects(ids) = object.values![index] { object.committedToMany[index] = ids }
            }
        }
        insertedSet.removeAll()
        deletedSet.removeAll()
        changedSet.removeAll()
        processedDeletes.removeAll()
        for object in inserted { object.didSave() }
        for object in updated { object.didSave() }
        guard parent == nil else { return }
        persistentStoreCoordinator.rowCache.apply(saved: saved, deleted: Array(notification.deletedObjectIDs))
        advanceQueryGeneration()
        persistentStoreCoordinator.didSave(notification, from: self)
        notifyChangeObservers()
    }

    /// Assigns a new object to a store (when several stores hold its entity).
    public func assign(_ object: ManagedObject, to store: PersistentStore) {
        assignedStores[object.objectID] = store.identifier
    }
}
