import Foundation

/// One saved transaction of a store: who saved, when, and what changed.
public struct PersistentHistoryTransaction: Sendable, Hashable {
    /// The transaction's position, to resume after it.
    public var token: PersistentHistoryToken
    /// The transaction number (increasing within a store).
    public var transactionNumber: Int64 { token.transactionNumber }
    /// When the transaction was saved.
    public var timestamp: Date
    /// The saving context's ``ManagedObjectContext/transactionAuthor``.
    public var author: String?
    /// The saving context's name.
    public var contextName: String?
    /// The saving program's bundle identifier (its executable name on Linux).
    public var bundleID: String?
    /// The saving process's identifier.
    public var processID: String?
    /// The store's identifier.
    public var storeID: String { token.storeIdentifier }
    /// The changes, when the request asked for them.
    public var changes: [PersistentHistoryChange]?

    /// A notification to merge the transaction into a context with
    /// `ManagedObjectContext/mergeChanges(fromContextDidSave:)`.
    public func objectIDNotification() -> SaveNotification {
        var notification = SaveNotification()
        for change in changes ?? [] {
            switch change.changeType {
            case .insert: notification.insertedObjectIDs.insert(change.changedObjectID)
            case .update: notification.updatedObjectIDs.insert(change.changedObjectID)
            case .delete: notification.deletedObjectIDs.insert(change.changedObjectID)
            }
        }
        return notification
    }
}

/// One object's change in a transaction.
public struct PersistentHistoryChange: Sendable, Hashable {
    /// Insert, update or delete (stored as 0, 1, 2).
    public enum ChangeType: Int, Sendable, Hashable {
        case insert = 0
        case update = 1
        case delete = 2
    }

    /// The change's number.
    public var changeID: Int64
    /// The object that changed.
    public var changedObjectID: ManagedObjectID
    /// What happened to it.
    public var changeType: ChangeType
    /// For updates: the names of the properties that changed.
    public var updatedProperties: Set<String>?
    /// For deletes: the values of attributes marked "preserve after deletion".
    public var tombstone: [String: PropertyValue]?
    /// The transaction number the change belongs to.
    public var transactionNumber: Int64
}
