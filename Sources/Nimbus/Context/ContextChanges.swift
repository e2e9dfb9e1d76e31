import Foundation
import Synchronization

/// What one context notification reports, by object ID (so it can cross to any task):
/// the payload of ``ManagedObjectContext/changes(of:)`` and of the `changes` entry of each
/// context notification's user info.
///
/// ```swift
/// for await change in context.changes(of: [.didSave]) {
///     print(change.insertedObjectIDs.count, "inserted")
/// }
/// ```
public struct ContextChanges: Sendable {
    /// Which notification this is.
    public enum Kind: Sendable, Hashable, CaseIterable {
        /// Objects changed in the context (at the end of an event: ``ManagedObjectContext/processPendingChanges()``,
        /// the end of a `ManagedObjectContext/perform(_:)` block, a save, a merge).
        case objectsDidChange
        /// A save is about to write (no IDs).
        case willSave
        /// A save wrote.
        case didSave
        /// The context merged another context's save.
        case didMerge
    }

    /// Which notification this is.
    public var kind: Kind
    /// Objects inserted (for ``Kind/didSave``: their permanent IDs).
    public var insertedObjectIDs: Set<ManagedObjectID> {
        get { inserted.set }
        set { inserted = ObjectIDList(newValue) }
    }
    /// Objects whose values changed.
    public var updatedObjectIDs: Set<ManagedObjectID> {
        get { updated.set }
        set { updated = ObjectIDList(newValue) }
    }
    /// Objects deleted.
    public var deletedObjectIDs: Set<ManagedObjectID> {
        get { deleted.set }
        set { deleted = ObjectIDList(newValue) }
    }
    // Saves and events list their objects; the sets are built when someone reads them.
    private var inserted = ObjectIDList([])
    private var updated = ObjectIDList([])
    private var deleted = ObjectIDList([])

    /// Sets the IDs from lists of distinct IDs, hashed only when read.
    mutating func setObjectIDs(inserted: [ManagedObjectID], updated: [ManagedObjectID], deleted: [ManagedObjectID]) {
        self.inserted = ObjectIDList(inserted)
        self.updated = ObjectIDList(updated)
        self.deleted = ObjectIDList(deleted)
    }
    /// Objects reloaded from the store (refreshed or merged).
    public var refreshedObjectIDs: Set<ManagedObjectID> = []
    /// Objects whose rows are gone (deleted elsewhere) and which the context let go of.
    public var invalidatedObjectIDs: Set<ManagedObjectID> = []
    /// Whether every object was let go of (``ManagedObjectContext/reset()``).
    public var invalidatedAllObjects = false

    /// Creates a payload.
    public init(kind: Kind) { self.kind = kind }

    /// Whether nothing is reported.
    public var isEmpty: Bool {
        inserted.isEmpty && updated.isEmpty && deleted.isEmpty
            && refreshedObjectIDs.isEmpty && invalidatedObjectIDs.isEmpty && !invalidatedAllObjects
    }
}

extension ManagedObjectContext {
    /// Posted (object: the context, on its queue) at the end of each event that changed
    /// objects: user info ``NotificationKey`` `insertedObjects`, `updatedObjects`,
    /// `deletedObjects`, `refreshedObjects`, `invalidatedObjects` (sets of ``ManagedObject``),
    /// `invalidatedAllObjects` and `changes` (a ``ContextChanges``).
    public static let objectsDidChangeNotification = Notification.Name("NimbusManagedObjectContextObjectsDidChange")
    /// Posted (object: the context, on its queue) when a save begins, before `willSave` of the objects.
    public static let willSaveNotification = Notification.Name("NimbusManagedObjectContextWillSave")
    /// Posted (object: the context, on its queue) after a save wrote: user info
    /// `insertedObjects`, `updatedObjects`, `deletedObjects` and `changes`.
    public static let didSaveObjectsNotification = Notification.Name("NimbusManagedObjectContextDidSaveObjects")
    /// Posted (object: the context, on its queue) after the context merged another
    /// context's save: user info `changes` (inserted, updated, deleted IDs).
    public static let didMergeChangesObjectIDsNotification = Notification.Name("NimbusManagedObjectContextDidMergeChangesObjectIDs")

    /// The user-info keys of context notifications.
    public enum NotificationKey {
        public static let insertedObjects = "inserted"
        public static let updatedObjects = "updated"
        public static let deletedObjects = "deleted"
        public static let refreshedObjects = "refreshed"
        public static let invalidatedObjects = "invalidated"
        public static let invalidatedAllObjects = "invalidatedAll"
        /// A ``ContextChanges`` with the IDs.
        public static let changes = "changes"
    }

    /// The context's notifications as an asynchronous sequence, from any task.
    ///
    /// The sequence ends when the consumer stops iterating. For example:
    ///
    /// ```swift
    /// Task {
    ///     for await saved in context.changes(of: [.didSave]) { refresh(saved.updatedObjectIDs) }
    /// }
    /// ```
    public func changes(of kinds: Set<ContextChanges.Kind> = Set(ContextChanges.Kind.allCases)) -> AsyncStream<ContextChanges> {
        let (stream, continuation) = AsyncStream<ContextChanges>.makeStream(bufferingPolicy: .unbounded)
        let key = UUID()
        extras.changeContinuations.withLock { $0[key] = (kinds, continuation) }
        continuation.onTermination = { [weak self] _ in
            _ = self?.extras.changeContinuations.withLock { $0.removeValue(forKey: key) }
        }
        return stream
    }

    /// Posts a notification and hands its payload to async consumers.
    ///
    /// The user info is built once at its final size: every save posts three of these, and
    /// growing a `[AnyHashable: Any]` key by key was a tenth of a one-object save.
    func post(_ name: Notification.Name, _ changes: ContextChanges, objects: KeyValuePairs<String, Set<ManagedObject>> = [:]) {
        var userInfo = [AnyHashable: Any](minimumCapacity: objects.count + 2)
        userInfo[NotificationKey.changes] = changes
        for (key, value) in objects { userInfo[key] = value }
        if changes.kind == .objectsDidChange { userInfo[NotificationKey.invalidatedAllObjects] = changes.invalidatedAllObjects }
        NotificationCenter.default.post(name: name, object: self, userInfo: userInfo)
        let consumers = extras.changeContinuations.withLock { Array($0.values) }
        for consumer in consumers where consumer.kinds.contains(changes.kind) { consumer.continuation.yield(changes) }
    }

    func postWillSave() {
        post(Self.willSaveNotification, ContextChanges(kind: .willSave))
    }

    /// `insertedObjects` is `inserted` as a set.
    func postDidSave(inserted: [ManagedObject], insertedObjects: Set<ManagedObject>, updated: Set<ManagedObject>, deleted: Set<ManagedObject>) {
        var changes = ContextChanges(kind: .didSave)
        changes.setObjectIDs(inserted: inserted.map(\.objectID), updated: updated.map(\.objectID), deleted: deleted.map(\.objectID))
        post(Self.didSaveObjectsNotification, changes, objects: [
            NotificationKey.insertedObjects: insertedObjects, NotificationKey.updatedObjects: updated, NotificationKey.deletedObjects: deleted,
        ])
    }

    /// Merges another context's save, given the notification it posted
    /// (``didSaveObjectIDsNotification``).
    ///
    /// ```swift
    /// NotificationCenter.default.addObserver(forName: ManagedObjectContext.didSaveObjectIDsNotification, object: writer, queue: nil) { note in
    ///     reader.perform { reader.mergeChanges(fromContextDidSave: note) }
    /// }
    /// ```
    public func mergeChanges(fromContextDidSave notification: Notification) {
        guard let changes = notification.userInfo?[SaveNotification.userInfoKey] as? SaveNotification else { return }
        mergeChanges(fromContextDidSave: changes)
    }
}
