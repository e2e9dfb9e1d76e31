import Foundation

extension ManagedObject {
    /// Loads the object's values if it is a fault. Errors are kept on the context
    /// (``ManagedObjectContext/shouldDeleteInaccessibleFaults``) since accessors do not throw.
    func fireFaultIfNeeded() {
        guard values == nil else { return }
        do {
            try fireFault()
        } catch let error as NimbusError {
            managedObjectContext?.lastFaultError = error
            markInaccessible()
        } catch {
            markInaccessible()
        }
    }

    /// Loads the object's values, throwing when the row is gone and the context does not
    /// delete inaccessible faults.
    func fireFault() throws {
        guard values == nil else { return }
        if let committed {
            fulfill(with: committed)
            return
        }
        guard let context = managedObjectContext else {
            throw NimbusError(.inaccessibleFault, "\(objectID) is not in a context any more")
        }
        if let (group, position) = batch {
            batch = nil
            try context.loadSnapshots(for: Array(group.batch(containing: position)))
            if values != nil { return }
        }
        if let snapshot = try context.rowSnapshot(for: objectID) {
            fulfill(with: snapshot)
        } else if context.shouldDeleteInaccessibleFaults {
            markInaccessible()
        } else {
            throw NimbusError(.inaccessibleFault, "the row of \(objectID) was deleted; the fault cannot be fulfilled")
        }
    }

    func fulfill(with snapshot: RowSnapshot, awakening: Bool = true) {
        committed = snapshot
        values = snapshot.values
        loadedToMany = []
        committedToMany = [:]
        if awakening { awakeFromFetch() }
    }

    /// Core Data's behaviour for a fault whose row is gone: deleted, values nil.
    func markInaccessible() {
        values = entity.properties.map { $0.relationship?.isToMany == true ? .objects([]) : .null }
        loadedToMany = Set(entity.toManyIndexes)
        flags.isDeletedInStore = true
    }

    /// Loads the destinations of a to-many relationship from the store.
    func loadToMany(_ index: Int) throws -> [ManagedObjectID] {
        guard let context = managedObjectContext else { return [] }
        if let parent = context.parent { return context.destinationsFromParent(parent, of: objectID, index: index) }
        guard !objectID.isTemporaryID else { return [] }
        return try context.persistentStoreCoordinator.destinations(of: objectID, relationshipIndex: index, context: context)
    }

    /// Makes sure a to-many relationship's current members are in ``values``.
    func ensureToManyLoaded(_ index: Int) {
        fireFaultIfNeeded()
        guard !loadedToMany.contains(index) else { return }
        let ids = (try? loadToMany(index)) ?? []
        committedToMany[index] = ids
        values![index] = .objects(ids)
        loadedToMany.insert(index)
    }

    /// Turns the object back into a fault (dropping unsaved changes when `mergeChanges` is false).
    func turnIntoFault() {
        values = nil
        committed = nil
        committedToMany = [:]
        loadedToMany = []
        flags.isChanged = false
    }
}
