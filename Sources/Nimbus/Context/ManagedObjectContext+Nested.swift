import Foundation

extension ManagedObjectContext {
    /// The row of an object as this context's source sees it: the parent's current values
    /// for a nested context, the store's row otherwise. Nil when the object is gone there.
    func rowSnapshot(for id: ManagedObjectID) throws -> RowSnapshot? {
        guard let parent else { return try persistentStoreCoordinator.snapshot(for: id, context: self) }
        return try parent.performAndWait { () throws -> RowSnapshot? in
            let object = parent.object(with: id)
            do {
                try object.fireFault()
            } catch let error as NimbusError where error.code == .inaccessibleFault {
                return nil
            }
            guard !object.flags.isDeleted, !object.flags.isDeletedInStore, var values = object.values else { return nil }
            for index in object.entity.toManyIndexes { values[index] = .null }
            return RowSnapshot(version: object.committed?.version ?? 0, values: values)
        }
    }

    /// The current destinations of a to-many relationship in the parent.
    func destinationsFromParent(_ parent: ManagedObjectContext, of id: ManagedObjectID, index: Int) throws -> [ManagedObjectID] {
        try parent.performAndWait {
            let object = parent.object(with: id)
            try object.loadToManyIfNeeded(index)
            if case let .objects(ids) = object.values?[index] { return ids }
            return []
        }
    }

    /// The IDs a fetch gives in the parent, with the parent's (and its ancestors') unsaved
    /// changes applied. Unsliced, the parent is still asked for at most `widenedLimit` IDs
    /// when one is given (enough for this context's own pending objects to be merged in).
    func fetchIDsThroughParent<Result>(_ request: FetchRequest<Result>, sliced: Bool, widenedLimit: Int? = nil) throws -> [ManagedObjectID] {
        guard let parent else { return [] }
        var ids = FetchRequest<ManagedObjectID>(entityName: request.entityName)
        ids.predicate = request.predicate
        ids.sortDescriptors = request.sortDescriptors
        ids.includesSubentities = request.includesSubentities
        ids.includesPendingChanges = request.includesPendingChanges
        if sliced {
            ids.fetchLimit = request.fetchLimit
            ids.fetchOffset = request.fetchOffset
        } else if let widenedLimit {
            ids.fetchLimit = widenedLimit
        }
        return try parent.performAndWait { try parent.fetch(ids) }
    }

    /// Pushes this nested context's changes into its parent: new objects appear there with
    /// the same IDs, changed values are set, deleted objects are deleted. Nothing is written
    /// to the store until the parent saves.
    func saveIntoParent(_ parent: ManagedObjectContext, inserted: [ManagedObject], updated: Set<ManagedObject>, deleted: Set<ManagedObject>) {
        let insertedRows = inserted.map { ($0.objectID, $0.values!) }
        let updatedRows = updated.map { object in
            (object.objectID, object.changedPropertyIndexes().map { (index: $0, value: object.values![$0]) })
        }
        let deletedIDs = deleted.map(\.objectID)
        parent.performAndWait {
            for (id, values) in insertedRows {
                let object = id.entity.managedObjectClass.init(materializing: .init(id: id, context: parent.reference, snapshot: nil, asFault: true))
                object.values = values
                object.loadedToMany = id.entity.toManyIndexSet
                object.flags.isInserted = true
                parent.insertionCounter &+= 1
                object.insertionSequence = parent.insertionCounter
                parent.insertedSet.insert(object)
                parent.insertionOrder.append((object, parent.insertionCounter))
                parent.register(object)
            }
            for (id, changes) in updatedRows {
                let object = parent.object(with: id)
                object.fireFaultIfNeeded()
                for (index, value) in changes {
                    if object.entity.properties[index].relationship?.isToMany == true { object.ensureToManyLoaded(index) }
                    object.setPrimitive(value, at: index)
                }
            }
            for id in deletedIDs { parent.delete(parent.object(with: id)) }
            parent.notifyChangeObservers()
        }
    }

    /// Tells nested contexts which temporary IDs became permanent.
    func propagatePermanentIDs(_ map: [ManagedObjectID: ManagedObjectID]) {
        guard !map.isEmpty else { return }
        children.removeAll { $0.context == nil }
        for child in children.compactMap(\.context) {
            child.perform {
                let newIDs = map.compactMap { old, new in child.registry[old].map { ($0, new) } }
                child.adoptPermanentIDs(newIDs, map: map)
                child.remapReferences(map)
                child.propagatePermanentIDs(map)
            }
        }
    }
}
