import Foundation

extension ManagedObjectContext {
    /// Discards every unsaved change: inserted objects leave, deleted ones come back,
    /// changed ones return to their saved values.
    public func rollback() {
        checkQueue()
        for object in insertedSet {
            unregister(object)
            object.managedObjectContext = nil
            object.flags = .init()
        }
        for object in changedSet.union(deletedSet) where !object.flags.isInserted {
            object.flags.isDeleted = false
            object.flags.isChanged = false
            if let committed = object.committed {
                object.values = committed.values
                object.loadedToMany = []
                object.committedToMany = [:]
            } else {
                object.turnIntoFault()
            }
        }
        insertedSet.removeAll()
        insertionOrder.removeAll()
        deletedSet.removeAll()
        changedSet.removeAll()
        processedDeletes.removeAll()
        faultFailures.removeAll()
    }

    /// Forgets every object: registered objects are released and unsaved changes dropped.
    public func reset() {
        checkQueue()
        rollback()
        clearEventRecord()
        extras.eventInvalidatedAll = true
        extras.undoManager?.removeAllActions()
        for object in registry.all {
            object.turnIntoFault()
            object.managedObjectContext = nil
        }
        registry.removeAll()
        toManyFaultBatcher.forget()
        assignedStores.removeAll()
        permanentIDsForTemporary.removeAll()
        advanceQueryGeneration()
    }

    /// Reloads an object from the store on its next access.
    ///
    /// With `mergeChanges` false the object becomes a fault and its unsaved changes are
    /// dropped; with true its unsaved changes are kept on top of the store's values.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        checkQueue()
        guard object.managedObjectContext === self, !object.objectID.isTemporaryID else { return }
        if !extras.isApplyingUndo { extras.eventRefreshed.append(object) }
        persistentStoreCoordinator.rowCache.remove([object.objectID])
        if mergeChanges, let values = object.values, object.hasPersistentChangedValues {
            let changed = object.changedPropertyIndexes()
            let kept = changed.map { ($0, values[$0]) }
            let snapshot: RowSnapshot?
            do { snapshot = try rowSnapshot(for: object.objectID) } catch {
                // The values stay as they were; the next save reports the failed read.
                recordFaultFailure(error, for: object.objectID)
                return
            }
            guard let snapshot else { return }
            object.fulfill(with: snapshot)
            for (index, value) in kept {
                if object.entity.properties[index].relationship?.isToMany == true {
                    object.ensureToManyLoaded(index)
                }
                object.values![index] = value
            }
            return
        }
        object.turnIntoFault()
        changedSet.remove(object)
        faultFailures[object.objectID] = nil
    }

    /// Refreshes every registered object, keeping unsaved changes.
    public func refreshAllObjects() {
        checkQueue()
        for object in registry.all {
            refresh(object, mergeChanges: object.hasChanges)
        }
    }

    /// Merges another context's save: updated objects take the saved values (keeping this
    /// context's own unsaved changes on top), deleted objects are removed, and
    /// inserted objects become available.
    public func mergeChanges(fromContextDidSave notification: SaveNotification) {
        checkQueue()
        defer {
            var merged = ContextChanges(kind: .didMerge)
            merged.insertedObjectIDs = notification.insertedObjectIDs
            merged.updatedObjectIDs = notification.updatedObjectIDs
            merged.deletedObjectIDs = notification.deletedObjectIDs
            post(Self.didMergeChangesObjectIDsNotification, merged)
            endEvent()
            notifyChangeObservers()
        }
        advanceQueryGeneration()
        for id in notification.updatedObjectIDs.union(notification.insertedObjectIDs) {
            guard let object = registry[id] else { continue }
            extras.eventRefreshed.append(object)
            if let snapshot = notification.snapshots[id], !object.hasPersistentChangedValues {
                object.fulfill(with: snapshot)
            } else {
                refresh(object, mergeChanges: true)
            }
            if object.loadedToMany.isEmpty == false { object.loadedToMany = []; object.committedToMany = [:] }
        }
        for id in notification.deletedObjectIDs {
            guard let object = registry[id] else { continue }
            extras.eventInvalidated.append(object)
            // Unsaved edits of an object deleted elsewhere stay pending, so the next save
            // reports them as a merge conflict instead of dropping them.
            let edited = object.flags.isChanged && !object.flags.isDeleted && object.hasPersistentChangedValues
            unregister(object)
            object.flags.isDeletedInStore = true
            object.markInaccessible()
            if edited { changedSet.insert(object) }
        }
        // To-many relationships pointing at changed objects may have changed too.
        let touched = notification.insertedObjectIDs.union(notification.updatedObjectIDs).union(notification.deletedObjectIDs)
        guard !touched.isEmpty else { return }
        for object in registry.all where !object.loadedToMany.isEmpty && !object.hasPersistentChangedValues {
            object.loadedToMany = []
            object.committedToMany = [:]
            if let committed = object.committed { object.values = committed.values }
        }
    }
}
