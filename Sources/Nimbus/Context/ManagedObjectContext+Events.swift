import Foundation

// An "event" is the work between two calls of `processPendingChanges()` (which a save, a
// merge and the end of each `perform` block make too), as a run-loop turn is for Core Data:
// it is what `objectsDidChangeNotification` reports, what `changedValuesForCurrentEvent()`
// compares with, and what one undo step takes back.

extension ManagedObjectContext {
    /// Remembers an object's state before its first change in the current event.
    /// Objects inserted in the event need none: undoing the event removes them.
    @inline(__always)
    func recordTouch(_ object: ManagedObject) {
        guard !object.flags.isTouchedInEvent, !extras.isApplyingUndo,
              !(object.flags.isInserted && object.insertionSequence > reference.eventInsertionMark) else { return }
        // Undo needs every state; otherwise an object with no unsaved changes is described by
        // its committed row (no state is kept, and its values are not copied).
        if extras.undoManager != nil || object.flags.isChanged || object.flags.isDeleted || object.committed == nil {
            extras.eventStates[ObjectIdentifier(object)] = ObjectState(of: object, in: self)
        }
        object.flags.isTouchedInEvent = true
        extras.eventOrder.append(object)
    }

    /// The state of an object before its first change in the current event, when it was
    /// touched in it: the kept state, or (for an object that had no unsaved changes) one made
    /// from its committed row.
    func stateBeforeEvent(of object: ManagedObject) -> ObjectState? {
        guard object.flags.isTouchedInEvent else { return nil }
        if let state = extras.eventStates[ObjectIdentifier(object)] { return state }
        return ObjectState(committedStateOf: object, in: self)
    }

    /// Clears the touched marks and the kept states: a new event begins.
    func clearEventRecord() {
        for object in extras.eventOrder { object.flags.isTouchedInEvent = false }
        extras.eventStates.removeAll(keepingCapacity: true)
        extras.eventOrder.removeAll(keepingCapacity: true)
    }

    /// Objects inserted in the current event (and still inserted).
    var objectsInsertedInEvent: [ManagedObject] {
        let mark = reference.eventInsertionMark
        guard insertionCounter != mark else { return [] }
        return pendingInsertions(since: mark).filter { $0.flags.isInserted }
    }

    /// Objects of ``insertedSet`` not deleted (or all of them, `includingDeleted`), in the
    /// order they were (last) inserted; with `mark`, those inserted after that insertion
    /// sequence. Walking them in this order reads objects in the order they were made,
    /// where walking the set reads them scattered.
    ///
    /// Every member of ``insertedSet`` has its entry in ``insertionOrder`` (each insertion
    /// appends one; they are cleared together), so when the current entries are as many as
    /// the members they are the members, and none is looked up in the set (a million
    /// lookups in a million-object set miss the cache each time).
    ///
    /// A save asks for the list again after each step that may change it (`willSave`
    /// overrides, a merge policy's resolution before a retry), so it is not kept.
    func pendingInsertions(since mark: Int32 = 0, includingDeleted: Bool = false) -> [ManagedObject] {
        var current = insertionOrder.compactMap { object, sequence in object.insertionSequence == sequence ? object : nil }
        if current.count != insertedSet.count { current.removeAll { !insertedSet.contains($0) } }
        if mark != 0 { current.removeAll { $0.insertionSequence <= mark } }
        if !includingDeleted { current.removeAll { $0.flags.isDeleted } }
        return current
    }

    /// `objects` (distinct members of ``insertedSet``) as a set: the context's own set when
    /// they are all of it (an import's one event, a save), so none is built.
    func insertedObjectSet(_ objects: [ManagedObject]) -> Set<ManagedObject> {
        objects.count == insertedSet.count ? insertedSet : Set(objects)
    }

    /// Whether the current event changed anything.
    var eventHasChanges: Bool {
        !extras.eventOrder.isEmpty || insertionCounter != reference.eventInsertionMark
            || !extras.eventRefreshed.isEmpty || !extras.eventInvalidated.isEmpty || extras.eventInvalidatedAll
    }

    /// Ends the current event: posts ``objectsDidChangeNotification`` for what it changed
    /// and gives the undo manager one undo step for it.
    func endEvent() {
        guard eventHasChanges else { return }
        let inserted = objectsInsertedInEvent
        var updated: Set<ManagedObject> = []
        var deleted: Set<ManagedObject> = []
        let hasStates = !extras.eventStates.isEmpty
        for object in extras.eventOrder {
            guard let before = hasStates ? extras.eventStates[ObjectIdentifier(object)] : nil else {
                // No unsaved changes before the event: any now are the event's.
                if object.flags.isDeleted { deleted.insert(object) }
                else if object.flags.isChanged && object.managedObjectContext === self { updated.insert(object) }
                continue
            }
            if object.flags.isDeleted && !before.flags.isDeleted {
                if !object.flags.isInserted || before.inContext { deleted.insert(object) }
            } else if !object.flags.isDeleted && object.managedObjectContext === self && before.values != object.values {
                updated.insert(object)
            }
        }
        var changes = ContextChanges(kind: .objectsDidChange)
        changes.setObjectIDs(inserted: inserted.map(\.objectID), updated: updated.map(\.objectID), deleted: deleted.map(\.objectID))
        let refreshed = Set(extras.eventRefreshed)
        let invalidated = Set(extras.eventInvalidated)
        changes.refreshedObjectIDs = Set(refreshed.map(\.objectID))
        changes.invalidatedObjectIDs = Set(invalidated.map(\.objectID))
        changes.invalidatedAllObjects = extras.eventInvalidatedAll

        if let undoManager = extras.undoManager, !extras.isApplyingUndo {
            var before = extras.eventOrder.compactMap { stateBeforeEvent(of: $0) }
            let touched = Set(extras.eventOrder.map(ObjectIdentifier.init))
            let fresh = inserted.filter { !touched.contains(ObjectIdentifier($0)) }
            before += fresh.map { ObjectState(detached: $0) }
            let after = (extras.eventOrder + fresh).map { object in
                var state = ObjectState(of: object, in: self)
                state.flags.isTouchedInEvent = false
                return state
            }
            if !before.isEmpty { undoManager.record(UndoStep(before: before, after: after)) }
        }
        clearEventRecord()
        extras.eventRefreshed.removeAll()
        extras.eventInvalidated.removeAll()
        extras.eventInvalidatedAll = false
        reference.eventInsertionMark = insertionCounter
        guard !changes.isEmpty else { return }
        post(Self.objectsDidChangeNotification, changes, objects: [
            NotificationKey.insertedObjects: insertedObjectSet(inserted), NotificationKey.updatedObjects: updated,
            NotificationKey.deletedObjects: deleted, NotificationKey.refreshedObjects: refreshed,
            NotificationKey.invalidatedObjects: invalidated,
        ])
    }
}

extension ObjectState {
    /// The state of an object before it was inserted: not in the context.
    init(detached object: ManagedObject) {
        self.object = object
        inContext = false
        objectID = object.objectID
        values = object.values
        flags = ManagedObject.Flags()
        loadedToMany = object.loadedToMany
        committedToMany = object.committedToMany
    }

    /// The state of an object that had no unsaved changes: its committed row.
    init(committedStateOf object: ManagedObject, in context: ManagedObjectContext) {
        self.object = object
        inContext = object.managedObjectContext === context
        objectID = object.objectID
        values = object.committedBaseline
        var flags = object.flags
        flags.isChanged = false
        flags.isDeleted = false
        flags.isTouchedInEvent = false
        self.flags = flags
        loadedToMany = object.loadedToMany
        committedToMany = object.committedToMany
    }
}
