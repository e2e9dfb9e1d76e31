import Foundation

/// What a save changed, by object ID: posted after every save as
/// ``ManagedObjectContext/didSaveObjectIDsNotification`` and accepted by
/// ``ManagedObjectContext/mergeChanges(fromContextDidSave:)``.
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
    public var insertedObjectIDs: Set<ManagedObjectID>
    /// IDs of updated objects.
    public var updatedObjectIDs: Set<ManagedObjectID>
    /// IDs of deleted objects.
    public var deletedObjectIDs: Set<ManagedObjectID>
    /// Rows as saved, so merging contexts need not read them again.
    var snapshots: [ManagedObjectID: RowSnapshot] = [:]

    /// Creates a notification (for merging changes made elsewhere, such as by batch requests).
    public init(insertedObjectIDs: Set<ManagedObjectID> = [], updatedObjectIDs: Set<ManagedObjectID> = [],
                deletedObjectIDs: Set<ManagedObjectID> = []) {
        self.insertedObjectIDs = insertedObjectIDs
        self.updatedObjectIDs = updatedObjectIDs
        self.deletedObjectIDs = deletedObjectIDs
    }
}

extension ManagedObjectContext {
    /// Posted after a context saves, with a ``SaveNotification`` in its user info.
    public static let didSaveObjectIDsNotification = Notification.Name("NimbusManagedObjectContextDidSaveObjectIDs")
}
