import Foundation

extension ManagedObject {
    /// Loads the object's values if it is a fault, for accessors that cannot throw.
    ///
    /// Returns whether the values are loaded. Only a row that is really gone (with
    /// ``ManagedObjectContext/shouldDeleteInaccessibleFaults``) makes the object
    /// inaccessible; any other failure (a lock held too long, an I/O error, a corrupt page)
    /// leaves it a live fault and is kept on the context, whose next ``ManagedObjectContext/save()``
    /// throws it, so edits made meanwhile cannot vanish silently.
    @discardableResult @inline(__always)
    func fireFaultIfNeeded() -> Bool {
        if values != nil { return true }
        return fireFaultRecordingFailure()
    }

    private func fireFaultRecordingFailure() -> Bool {
        do {
            try fireFault()
            return true
        } catch {
            managedObjectContext?.recordFaultFailure(error, for: objectID)
            return false
        }
    }

    /// Loads the object's values if it is a fault (its row is read, or taken from the
    /// context's caches), reporting what went wrong.
    ///
    /// Accessors such as ``value(forKey:)`` fire faults themselves and cannot throw; call
    /// this (or ``validatedValue(forKey:)``) where a failed read must be handled. For example:
    ///
    /// ```swift
    /// do {
    ///     try post.fireFault()
    /// } catch let error as NimbusError where error.code == .inaccessibleFault {
    ///     // The row was deleted by someone else.
    /// }
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/inaccessibleFault`` when the row is gone and
    ///   the context's ``ManagedObjectContext/shouldDeleteInaccessibleFaults`` is false (when
    ///   it is true the object becomes deleted with nil values instead), or the store's error
    ///   when the read fails (``NimbusError/Code-swift.struct/sqliteError``,
    ///   ``NimbusError/Code-swift.struct/corruptStore``, ``NimbusError/Code-swift.struct/io``);
    ///   the object then stays a fault, and a later access reads again.
    public func fireFault() throws {
        checkQueue()
        guard values == nil else { return }
        if let committed {
            fulfill(with: committed)
            return
        }
        guard let context = managedObjectContext else {
            throw NimbusError(.inaccessibleFault, "\(objectID) is not in a context any more; fetch it again in a context")
        }
        if let (group, position) = batch {
            try context.loadSnapshots(for: Array(group.batch(containing: position)))
            batch = nil
            if values != nil { return }
        }
        if let snapshot = try context.rowSnapshot(for: objectID) {
            fulfill(with: snapshot)
        } else if context.shouldDeleteInaccessibleFaults {
            markInaccessible()
        } else {
            throw NimbusError(.inaccessibleFault, "the row of \(objectID) was deleted, so its fault cannot be fulfilled; "
                + "refresh or drop the object (or set shouldDeleteInaccessibleFaults to treat it as deleted)")
        }
    }

    func fulfill(with snapshot: RowSnapshot, awakening: Bool = true) {
        committed = snapshot
        values = snapshot.values
        loadedToMany = []
        committedToMany = [:]
        toManyValues = ToManyValueCache()
        loadTypedValuesIfTyped()
        if awakening { awakeFromFetch() }
    }

    /// Core Data's behaviour for a fault whose row is gone: deleted, values nil.
    func markInaccessible() {
        values = entity.properties.map { $0.relationship?.isToMany == true ? .objects([]) : .null }
        loadedToMany = entity.toManyIndexSet
        flags.isDeletedInStore = true
    }

    /// Loads the destinations of a to-many relationship from the store.
    func loadToMany(_ index: Int) throws -> [ManagedObjectID] {
        guard let context = managedObjectContext else {
            throw NimbusError(.inaccessibleFault, "\(objectID) is not in a context any more; fetch it again in a context")
        }
        if let parent = context.parent { return try context.destinationsFromParent(parent, of: objectID, index: index) }
        guard !objectID.isTemporaryID else { return [] }
        return try context.persistentStoreCoordinator.destinations(of: objectID, relationshipIndex: index, context: context)
    }

    /// Makes sure a to-many relationship's current members are in ``values``, for callers
    /// that cannot throw: returns false (and keeps the error on the context, as
    /// ``fireFaultIfNeeded()`` does) when they could not be read. A failed read never
    /// passes for an empty relationship.
    @discardableResult
    func ensureToManyLoaded(_ index: Int) -> Bool {
        do {
            try loadToManyIfNeeded(index)
            return true
        } catch {
            managedObjectContext?.recordFaultFailure(error, for: objectID)
            return false
        }
    }

    /// Makes sure a to-many relationship's current members are in ``values``.
    func loadToManyIfNeeded(_ index: Int) throws {
        try fireFault()
        guard !loadedToMany.contains(index) else { return }
        if let context = managedObjectContext, context.parent == nil, !objectID.isTemporaryID {
            // With the relationships of the objects fetched after this one, when the app walks them.
            try context.fireToManyFault(of: self, at: index)
            if loadedToMany.contains(index) { return }
        }
        let ids = try loadToMany(index)
        committedToMany[index] = ids
        values![index] = .objects(ids)
        loadedToMany.insert(index)
    }

    /// Turns the object back into a fault (dropping unsaved changes when `mergeChanges` is false).
    func turnIntoFault() {
        let wasLoaded = values != nil
        if wasLoaded { willTurnIntoFault() }
        defer { if wasLoaded { didTurnIntoFault() } }
        values = nil
        releaseTypedValues()
        committed = nil
        committedToMany = [:]
        loadedToMany = []
        toManyValues = ToManyValueCache()
        flags.isChanged = false
    }
}
