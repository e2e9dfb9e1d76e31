public import Nimbus

/// Identifies a model across contexts; `Sendable`, so it crosses threads where models
/// don't.
///
/// ```swift
/// let id = trip.persistentModelID
/// let same: Trip? = otherContext.registeredModel(for: id) ?? otherContext.model(for: id) as? Trip
/// ```
public struct PersistentIdentifier: Hashable, Sendable, Comparable, CustomStringConvertible {
    enum Storage: Hashable, Sendable {
        /// A model not yet inserted: its backing's number.
        case pending(UUID)
        /// An inserted model's object ID (temporary until saved).
        case object(ManagedObjectID)
    }

    let storage: Storage
    /// The name of the model's entity.
    public let entityName: String

    /// The identifier of the store that holds the model, when it was saved.
    public var storeIdentifier: String? {
        if case let .object(id) = storage, !id.isTemporaryID { return id.storeIdentifier }
        return nil
    }

    /// Whether the identifier is temporary (the model was not saved yet).
    public var isTemporary: Bool {
        if case let .object(id) = storage { return id.isTemporaryID }
        return true
    }

    /// The object ID, for models that were inserted.
    var objectID: ManagedObjectID? {
        if case let .object(id) = storage { return id }
        return nil
    }

    public var description: String {
        switch storage {
        case let .pending(uuid): "PersistentIdentifier(\(entityName), pending \(uuid))"
        case let .object(id): "PersistentIdentifier(\(id))"
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case let (.object(a), .object(b)): a < b
        case (.pending, .object): true
        case (.object, .pending): false
        case let (.pending(a), .pending(b)): a.uuidString < b.uuidString
        }
    }
}
