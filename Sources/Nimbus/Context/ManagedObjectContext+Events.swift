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
        guard !extras.isApplyingUndo, !(object.flags.isInserted && object.insertionSequence > reference.eventInsertionMark) else { return }
        let key = ObjectIdentifier(object)
        guard extras.eventStates[key] == nil else { return }
        // Undo needs every state; otherwise an object with no unsaved changes is described by
        // its committed row, and its values are not copied.
        let capturing = extras.undoManager != nil || object.flags.isChanged || object.flags.isDeleted || object.committed == nil
        extras.eventStates[key] = ObjectState(of: object, in: self, capturingValues: capturing)
        extras.eventOrder.append(object)
    }

    /// Objects inserted in the current event (and still inserted).
    var objectsInsertedInEvent: [ManagedObject] {
        let mark = reference.eventInsertionMark
        guard insertionCounter != mark else { return [] }
        return insertionOrder.compactMap { object, sequence in
            sequence > mark && object.insertionSequence == sequence && object.flags.isInserted && !object.flags.isDeleted
                && insertedSet.contains(object) ? object : nil
        }
    }

    /// Whether the current event changed anything.
    var eventHasChanges: Bool {
        !extras.eventStates.isEmpty || insertionCounter != reference.eventInsertionMark
            || !extras.eventRefreshed.isEmpty || !extras.eventInvalidated.isEmpty || extras.eventInvalidatedAll
    }

    /// Ends the current event: posts ``objectsDidChangeNotification`` for what it changed
    /// and gives the undo manager one undo step for it.
    func endEvent() {
        guard eventHasChanges else { return }
        let inserted = objectsInsertedInEvent
        var updated: Set<ManagedObject> = []
        var deleted: Set<ManagedObject> = []
        for object in extras.eventOrder {
            guard let before = extras.eventStates[ObjectIdentifier(object)] else { continue }
            if object.flags.isDeleted && !before.flags.isDeleted {
                if !object.flags.isInserted || before.inContext { deleted.insert(object) }
            } else if !object.flags.isDeleted && object.managedObjectContext === self
                        && (before.values ?? object.committedBaseline) != object.values {
                updated.insert(object)
            }
        }
        var changes = ContextChanges(kind: .objectsDidChange)
        changes.insertedObjectIDs = Set(inserted.map(\.objectID))
        changes.updatedObjectIDs = Set(updated.map(\.objectID))
        changes.deletedObjectIDs = Set(deleted.map(\.objectID))
        let refreshed = Set(extras.eventRefreshed)
        let invalidated = Set(extras.eventInvalidated)
        changes.refreshedObjectIDs = Set(refreshed.map(\.objectID))
        changes.invalidatedObjectIDs = Set(invalidated.map(\.objectID))
        changes.invalidatedAllObjects = extras.eventInvalidatedAll

        if let undoManager = extras.undoManager, !extras.isApplyingUndo {
            var before = extras.eventOrder.compactMap { extras.eventStates[ObjectIdentifier($0)] }
            let touched = Set(extras.eventOrder.map(ObjectIdentifier.init))
            let fresh = inserted.filter { !touched.contains(ObjectIdentifier($0)) }
            before += fresh.map { ObjectState(detached: $0) }
            let after = (extras.eventOrder + fresh).map { ObjectState(of: $0, in: self) }
            if !before.isEmpty { undoManager.record(UndoStep(before: before, after: after)) }
        }
        extras.eventStates.removeAll(keepingCapacity: true)
        extras.eventOrder.removeAll(keepingCapacity: true)
        extras.eventRefreshed.removeAll()
        extras.eventInvalidated.removeAll()
        extras.eventInvalidatedAll = false
        reference.eventInsertionMark = insertionCounter
        guard !changes.isEmpty else { return }
        post(Self.objectsDidChangeNotification, changes, objects: [
            NotificationKey.insertedObjects: Set(inserted), NotificationKey.updatedObjects: updated,
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
}
