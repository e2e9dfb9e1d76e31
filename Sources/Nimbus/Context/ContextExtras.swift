import Foundation
import Synchronization

/// State of a context's event tracking, notifications and undo, kept apart from the
/// context's core state. Confined to the context's queue, except ``changeContinuations``
/// which async consumers end from anywhere.
final class ContextExtras {
    /// States before their first touch in the current event of objects that had unsaved
    /// changes then (or of every touched object while an undo manager is set).
    var eventStates: [ObjectIdentifier: ObjectState] = [:]
    /// The order objects were first touched in the current event.
    var eventOrder: [ManagedObject] = []
    /// Objects refreshed or invalidated (deleted in the store) in the current event.
    var eventRefreshed: [ManagedObject] = []
    var eventInvalidated: [ManagedObject] = []
    var eventInvalidatedAll = false
    /// While an undo or redo applies states, edits are not recorded as a new event.
    var isApplyingUndo = false
    var undoManager: ContextUndoManager?
    /// Async consumers of ``ManagedObjectContext/changes(of:)``.
    let changeContinuations = Mutex<[UUID: (kinds: Set<ContextChanges.Kind>, continuation: AsyncStream<ContextChanges>.Continuation)]>([:])
}

/// The state of an object in a context at one instant: what undo and redo put back.
struct ObjectState {
    let object: ManagedObject
    let inContext: Bool
    let objectID: ManagedObjectID
    let values: [PropertyValue]?
    var flags: ManagedObject.Flags
    let loadedToMany: PropertyIndexSet
    let committedToMany: PropertyIndexMap<[ManagedObjectID]>

    /// The object's state now.
    init(of object: ManagedObject, in context: ManagedObjectContext) {
        self.object = object
        inContext = object.managedObjectContext === context
        objectID = object.objectID
        values = object.values
        flags = object.flags
        loadedToMany = object.loadedToMany
        committedToMany = object.committedToMany
    }
}

extension ManagedObject {
    /// The values the object had when it had no unsaved changes: its committed row, with the
    /// committed members of loaded to-many relationships.
    var committedBaseline: [PropertyValue]? {
        guard var values = committed?.values else { return nil }
        for index in entity.toManyIndexes {
            values[index] = committedToMany[index].map { .objects($0) } ?? .null
        }
        return values
    }
}
