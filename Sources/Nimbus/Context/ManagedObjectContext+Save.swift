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
    ///   were read, or deleted rows of objects changed here), ``NimbusError/Code-swift.struct/readOnlyStore``
    ///   or a SQLite error; and the error of a fault that an accessor which cannot throw failed
    ///   to read since the last save (edits made through it may be missing), until the object
    ///   is refreshed or the context rolled back.
    public func save() throws {
        checkQueue()
        try checkFaultFailures()
        try processPendingChanges()
        try checkFaultFailures()
        guard hasChanges else { return }
        postWillSave()
        for object in pendingInsertions(includingDeleted: true) { object.willSave() }
        for object in changedSet where !object.flags.isInserted { object.willSave() }
        for object in deletedSet where !object.flags.isInserted && !object.flags.isChanged { object.willSave() }
        try processPendingChanges()
        try checkFaultFailures()
        try resolveEditsOfDeletedRows()
        try computeDerivedAttributes()
        try validateForSave()
        try validateDeletes()
        // A conflict rolls the attempt back; the merge policy resolves it and the save tries
        // again (the error policy throws it instead).
        var attempt = 1
        while true {
            do {
                try writeChanges()
                return
            } catch let error as NimbusError where attempt < Self.saveAttempts {
                guard try resolveConflicts(after: error) else { throw error }
                attempt += 1
            }
        }
    }

    /// Writes the pending changes (into the parent, or to the stores in one transaction) and
    /// settles the objects.
    private func writeChanges() throws {
        let inserted = pendingInsertions()
        let deleted = deletedSet.filter { !$0.flags.isInserted }
        let updated = changedSet.filter { !$0.flags.isInserted && !$0.flags.isDeleted && !$0.flags.isDeletedInStore && $0.hasPersistentChangedValues }
        if let parent {
            saveIntoParent(parent, inserted: inserted, updated: updated, deleted: deleted)
            didSave(inserted: inserted, updated: updated, deleted: deleted, newIDs: [], references: [:], versions: [:])
            return
        }

        let plans = try savePlans(inserted: inserted, updated: updated, deleted: deleted)
        // Values refer to objects only through relationships.
        let resolvesReferences = inserted.contains { $0.entity.hasRelationships } || updated.contains { $0.entity.hasRelationships }

        var newIDs: [(ManagedObject, ManagedObjectID)] = []
        var references: [ManagedObjectID: ManagedObjectID] = [:]
        var versions: [ManagedObjectID: Int64] = [:]
        let written = plans.filter { !$0.request.isEmpty }.sorted(by: { $0.store.identifier < $1.store.identifier })
        func write() throws {
            for var plan in written {
                plan.request.resolvesReferences = resolvesReferences
                var hooks = plan.store.saveHooks
                if let work = pendingTransactionWork, work.store === plan.store { hooks.append(work.hook) }
                let result = try plan.store.database.save(plan.request, hooks: hooks)
                newIDs.reserveCapacity(newIDs.count + result.insertedIDs.count)
                for (object, id) in zip(plan.insertedObjects, result.insertedIDs) where object.objectID.isTemporaryID {
                    newIDs.append((object, id))
                }
                if references.isEmpty { references = result.permanentIDs } else { references.merge(result.permanentIDs) { a, _ in a } }
                if versions.isEmpty { versions = result.versions } else { versions.merge(result.versions) { a, _ in a } }
            }
        }
        // A save that touches several stores commits all of them or none.
        if written.count > 1 {
            try SharedTransaction.run(across: written.map(\.store.database), write)
        } else {
            try write()
        }
        didSave(inserted: inserted, updated: updated, deleted: deleted, newIDs: newIDs, references: references, versions: versions)
    }

    private func didSave(inserted: [ManagedObject], updated: Set<ManagedObject>, deleted: Set<ManagedObject>,
                         newIDs: [(ManagedObject, ManagedObjectID)], references: [ManagedObjectID: ManagedObjectID],
                         versions: [ManagedObjectID: Int64]) {
        if !assignedStores.isEmpty { for (object, _) in newIDs { assignedStores[object.objectID] = nil } }
        // Nested contexts may name new objects by their temporary IDs: they get the map.
        let map = parent != nil || !children.isEmpty
            ? Dictionary(newIDs.map { ($0.0.objectID, $0.1) }, uniquingKeysWith: { a, _ in a }) : [:]
        adoptPermanentIDs(newIDs, map: map)
        // Only objects changed in this save can point at the new objects' temporary IDs.
        if !references.isEmpty { remapReferences(references, among: Array(insertedSet) + Array(changedSet)) }
        propagatePermanentIDs(map)
        var notification = SaveNotification()
        var saved: [(ManagedObjectID, RowSnapshot)] = []
        let observed = persistentStoreCoordinator.hasMergeObservers
        // Rows of small saves go to the shared cache; a bulk import would only churn it.
        let cachesNewRows = inserted.count <= RowCache.newRowsPerSave
        func commit(_ object: ManagedObject, isNew: Bool) {
            var values = object.values!
            for index in object.entity.toManyIndexes { values[index] = .null }
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
        for object in inserted { commit(object, isNew: true) }
        for object in updated { commit(object, isNew: false) }
        notification.setObjectIDs(inserted: inserted.map(\.objectID), updated: updated.map(\.objectID), deleted: deleted.map(\.objectID))
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
        let insertedObjects = insertedObjectSet(inserted)
        insertedSet.removeAll()
        insertionOrder.removeAll()
        deletedSet.removeAll()
        changedSet.removeAll()
        processedDeletes.removeAll()
        for object in inserted { object.didSave() }
        for object in updated { object.didSave() }
        for object in deleted { object.didSave() }
        // A save ends the event; undo steps recorded before it no longer apply (decision 0034).
        clearEventRecord()
        reference.eventInsertionMark = insertionCounter
        extras.undoManager?.removeAllActions()
        postDidSave(inserted: inserted, insertedObjects: insertedObjects, updated: updated, deleted: deleted)
        registry.sweepIfWorthwhile()
        guard parent == nil else { return }
        persistentStoreCoordinator.rowCache.apply(saved: saved, deleted: deleted.map(\.objectID))
        advanceQueryGeneration()
        persistentStoreCoordinator.didSave(notification, from: self)
        notifyChangeObservers()
    }

    /// Assigns a new object to a store (when several stores hold its entity).
    public func assign(_ object: ManagedObject, to store: PersistentStore) {
        checkQueue()
        assignedStores[object.objectID] = store.identifier
    }
}
