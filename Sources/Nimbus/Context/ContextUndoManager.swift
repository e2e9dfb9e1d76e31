import Foundation

/// Undo and redo for a context: each event (the work between two
/// ``ManagedObjectContext/processPendingChanges()`` calls, or one `ManagedObjectContext/perform(_:)`
/// block) is one step, unless grouped by hand. Inserts, edits, deletes and relationship
/// changes (both sides) are taken back and redone.
///
/// Foundation's `UndoManager` is not available on Linux, so Nimbus has its own with the
/// same shape (see decision 0034). For example:
///
/// ```swift
/// context.undoManager = ContextUndoManager()
/// post.setValue("Draft", forKey: "title")
/// try context.processPendingChanges()
/// context.undoManager?.undo()   // the title is back
/// ```
///
/// Use it on the context's queue. A save clears it: steps taken before a save no longer apply.
public final class ContextUndoManager {
    /// How many steps are kept (0: unlimited).
    public var levelsOfUndo = 0
    /// Whether each event is one step (the default); when false, steps are made by
    /// ``beginUndoGrouping()`` and ``endUndoGrouping()`` only.
    public var groupsByEvent = true
    /// Whether recording is on.
    public private(set) var isUndoRegistrationEnabled = true

    weak var context: ManagedObjectContext?
    private var undoStack: [UndoStep] = []
    private var redoStack: [UndoStep] = []
    private var openGroup: UndoStep?
    private var groupingLevel = 0

    /// Creates an undo manager; set it as a context's ``ManagedObjectContext/undoManager``.
    public init() {}

    /// Whether there is a step to undo (the current event's changes count).
    public var canUndo: Bool { context?.eventHasChanges == true || !undoStack.isEmpty || openGroup != nil }
    /// Whether there is a step to redo.
    public var canRedo: Bool { !redoStack.isEmpty }

    /// Starts a step that lasts until the matching ``endUndoGrouping()``, however many events
    /// it spans.
    public func beginUndoGrouping() {
        context?.endEvent()
        groupingLevel += 1
        if groupingLevel == 1 { openGroup = UndoStep(before: [], after: []) }
    }

    /// Ends a step begun with ``beginUndoGrouping()``.
    public func endUndoGrouping() {
        precondition(groupingLevel > 0, "endUndoGrouping() without beginUndoGrouping()")
        context?.endEvent()
        groupingLevel -= 1
        if groupingLevel == 0, let group = openGroup {
            openGroup = nil
            if !group.before.isEmpty { push(group) }
        }
    }

    /// Stops recording steps.
    public func disableUndoRegistration() { isUndoRegistrationEnabled = false }
    /// Resumes recording steps.
    public func enableUndoRegistration() { isUndoRegistrationEnabled = true }

    /// Takes back the last step (ending the current event first).
    public func undo() {
        guard let context else { return }
        context.endEvent()
        guard let step = undoStack.popLast() else { return }
        context.apply(step.before)
        redoStack.append(step)
    }

    /// Redoes the last step undone.
    public func redo() {
        guard let context, let step = redoStack.popLast() else { return }
        context.endEvent()
        context.apply(step.after)
        undoStack.append(step)
    }

    /// Forgets every step.
    public func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        openGroup = nil
        groupingLevel = 0
    }

    func record(_ step: UndoStep) {
        guard isUndoRegistrationEnabled else { return }
        if var group = openGroup {
            group.merge(step)
            openGroup = group
            return
        }
        guard groupsByEvent else { return }
        push(step)
    }

    private func push(_ step: UndoStep) {
        undoStack.append(step)
        redoStack.removeAll()
        if levelsOfUndo > 0 && undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
    }
}

/// One undo step: the states of the objects it touched before and after.
struct UndoStep {
    var before: [ObjectState]
    var after: [ObjectState]

    /// Adds a later step: objects already here keep their earlier "before".
    mutating func merge(_ later: UndoStep) {
        let known = Set(before.map { ObjectIdentifier($0.object) })
        before += later.before.filter { !known.contains(ObjectIdentifier($0.object)) }
        let laterAfter = Set(later.after.map { ObjectIdentifier($0.object) })
        after = after.filter { !laterAfter.contains(ObjectIdentifier($0.object)) } + later.after
    }
}

extension ManagedObjectContext {
    /// The context's undo manager; nil (the default) records nothing.
    ///
    /// ```swift
    /// context.undoManager = ContextUndoManager()
    /// ```
    public var undoManager: ContextUndoManager? {
        get { checkQueue(); return extras.undoManager }
        set {
            checkQueue()
            endEvent()
            extras.undoManager = newValue
            newValue?.context = self
        }
    }

    /// Puts objects back into recorded states (an undo or a redo).
    func apply(_ states: [ObjectState]) {
        extras.isApplyingUndo = true
        defer { extras.isApplyingUndo = false }
        var touched: [ManagedObject] = []
        for state in states {
            let object = state.object
            if !state.inContext {
                // Not in the context then: an insert is taken back.
                if object.managedObjectContext === self {
                    unregister(object)
                    object.managedObjectContext = nil
                    object.flags = .init()
                }
                continue
            }
            if object.managedObjectContext !== self {
                object.managedObjectContext = self
                object.objectID = state.objectID
                register(object)
            }
            object.values = state.values
            object.flags = state.flags
            object.loadedToMany = state.loadedToMany
            object.committedToMany = state.committedToMany
            if state.flags.isInserted {
                if insertedSet.insert(object).inserted {
                    insertionCounter &+= 1
                    object.insertionSequence = insertionCounter
                    insertionOrder.append((object, insertionCounter))
                }
            } else {
                insertedSet.remove(object)
            }
            if state.flags.isDeleted { deletedSet.insert(object) } else { deletedSet.remove(object); processedDeletes.remove(object) }
            if state.flags.isChanged { changedSet.insert(object) } else { changedSet.remove(object) }
            touched.append(object)
        }
        // The undo is an event of its own for observers (not for the undo manager).
        reference.eventInsertionMark = insertionCounter
        for object in touched {
            for property in object.entity.properties { object.notifyValueObservers(forKey: property.name) }
        }
        notifyChangeObservers()
    }
}
