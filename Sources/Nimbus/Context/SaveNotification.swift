import Foundation
import Synchronization

/// What a save changed, by object ID: posted after every save as
/// ``ManagedObjectContext/didSaveObjectIDsNotification`` and accepted by
/// `ManagedObjectContext/mergeChanges(fromContextDidSave:)`.
///
/// ```swift
/// NotificationCenter.default.addObserver(forName: ManagedObjectContext.didSaveObjectIDsNotification, object: nil, queue: nil) { note in
///     let changes = note.userInfo?[SaveNotification.userInfoKey] as? SaveNotification
/// }
/// ```
public struct SaveNotification: Sendable {
    /// The key of the notification's user info that holds the `SaveNotification`.
    public static let userInfoKey = "NimbusSaveNotification"
    /// IDs of inserted objects (permanent).
    public var insertedObjectIDs: Set<ManagedObjectID> {
        get { inserted.set }
        set { inserted = ObjectIDList(newValue) }
    }
    /// IDs of updated objects.
    public var updatedObjectIDs: Set<ManagedObjectID> {
        get { updated.set }
        set { updated = ObjectIDList(newValue) }
    }
    /// IDs of deleted objects.
    public var deletedObjectIDs: Set<ManagedObjectID> {
        get { deleted.set }
        set { deleted = ObjectIDList(newValue) }
    }
    /// Rows as saved, so merging contexts need not read them again.
    var snapshots: [ManagedObjectID: RowSnapshot] = [:]

    // A save lists its IDs; the sets are built when someone reads them.
    private var inserted: ObjectIDList
    private var updated: ObjectIDList
    private var deleted: ObjectIDList

    /// Creates a notification (for merging changes made elsewhere, such as by batch requests).
    public init(insertedObjectIDs: Set<ManagedObjectID> = [], updatedObjectIDs: Set<ManagedObjectID> = [],
                deletedObjectIDs: Set<ManagedObjectID> = []) {
        inserted = ObjectIDList(insertedObjectIDs)
        updated = ObjectIDList(updatedObjectIDs)
        deleted = ObjectIDList(deletedObjectIDs)
    }

    /// Sets the IDs from lists (each ID once), without hashing them until they are read.
    mutating func setObjectIDs(inserted: [ManagedObjectID], updated: [ManagedObjectID], deleted: [ManagedObjectID]) {
        self.inserted = ObjectIDList(inserted)
        self.updated = ObjectIDList(updated)
        self.deleted = ObjectIDList(deleted)
    }
}

extension ManagedObjectContext {
    /// Posted after a context saves, with a ``SaveNotification`` in its user info.
    public static let didSaveObjectIDsNotification = Notification.Name("NimbusManagedObjectContextDidSaveObjectIDs")
}
