public import Foundation
public import Nimbus

/// A position in a store's history: SwiftData's `DefaultHistoryToken`.
///
/// ```swift
/// let newer = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > lastToken }))
/// ```
public struct DefaultHistoryToken: Codable, Hashable, Sendable, Comparable {
    /// The Nimbus token.
    public let token: PersistentHistoryToken

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.token < rhs.token }
}

/// A saved transaction of a store's history: SwiftData's `HistoryTransaction`.
public protocol HistoryTransaction: Sendable, Hashable, Identifiable {
    associatedtype TokenType: Comparable & Sendable
    var token: TokenType { get }
    var changes: [HistoryChange] { get }
}

/// One save as history records it: SwiftData's `DefaultHistoryTransaction`.
public struct DefaultHistoryTransaction: HistoryTransaction {
    /// The transaction's number in its store.
    public let transactionIdentifier: Int64
    /// Where the transaction ends in history.
    public let token: DefaultHistoryToken
    /// When it was saved.
    public let timestamp: Date
    /// The saving context's transaction author, if any (sync imports have `NimbusCloud.import`).
    public let author: String?
    /// The saving process's bundle identifier (its name on Linux).
    public let bundleIdentifier: String
    /// The saving process's identifier.
    public let processIdentifier: String
    /// The store's identifier.
    public let storeIdentifier: String
    /// What changed.
    public let changes: [HistoryChange]

    public var id: Int64 { transactionIdentifier }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.token == rhs.token }
    public func hash(into hasher: inout Hasher) { hasher.combine(token) }
}

/// One change of a transaction.
public enum HistoryChange: Sendable {
    case insert(any HistoryInsert)
    case update(any HistoryUpdate)
    case delete(any HistoryDelete)

    /// The identifier of the changed model.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case let .insert(change): change.changedPersistentIdentifier
        case let .update(change): change.changedPersistentIdentifier
        case let .delete(change): change.changedPersistentIdentifier
        }
    }
}

/// An insertion in history.
public protocol HistoryInsert<Model>: Sendable {
    associatedtype Model: PersistentModel
    var changedPersistentIdentifier: PersistentIdentifier { get }
    var changeIdentifier: Int64 { get }
    var transactionIdentifier: Int64 { get }
}

/// An update in history, with the attributes it changed.
public protocol HistoryUpdate<Model>: Sendable {
    associatedtype Model: PersistentModel
    var changedPersistentIdentifier: PersistentIdentifier { get }
    var changeIdentifier: Int64 { get }
    var transactionIdentifier: Int64 { get }
    var updatedAttributes: [PartialKeyPath<Model>] { get }
}

/// A deletion in history, with the values `.preserveValueOnDeletion` kept.
public protocol HistoryDelete<Model>: Sendable {
    associatedtype Model: PersistentModel
    var changedPersistentIdentifier: PersistentIdentifier { get }
    var changeIdentifier: Int64 { get }
    var transactionIdentifier: Int64 { get }
    var tombstone: HistoryTombstone<Model> { get }
}

public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert {
    public let changedPersistentIdentifier: PersistentIdentifier
    public let changeIdentifier: Int64
    public let transactionIdentifier: Int64
}

public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate, @unchecked Sendable {
    public let changedPersistentIdentifier: PersistentIdentifier
    public let changeIdentifier: Int64
    public let transactionIdentifier: Int64
    public let updatedAttributes: [PartialKeyPath<Model>]
}

public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete {
    public let changedPersistentIdentifier: PersistentIdentifier
    public let changeIdentifier: Int64
    public let transactionIdentifier: Int64
    public let tombstone: HistoryTombstone<Model>
}

/// The values of a deleted model that its attributes' `.preserveValueOnDeletion` kept.
///
/// ```swift
/// if case let .delete(deletion as DefaultHistoryDelete<Trip>) = change { print(deletion.tombstone[\.name] as Any) }
/// ```
public struct HistoryTombstone<Model: PersistentModel>: @unchecked Sendable, Sequence {
    let values: [String: Any]

    /// The kept value of a property, or nil when it was not kept.
    public subscript<Value>(_ keyPath: KeyPath<Model, Value>) -> Any? {
        Model.propertyName(for: keyPath).flatMap { values[$0] }
    }

    public func makeIterator() -> Dictionary<String, Any>.Iterator { values.makeIterator() }
}

/// Which history transactions to fetch or delete: SwiftData's `HistoryDescriptor`.
///
/// ```swift
/// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
/// descriptor.predicate = #Predicate { $0.author == "importer" }
/// ```
public struct HistoryDescriptor<T: HistoryTransaction>: @unchecked Sendable {
    /// Which transactions; all without one.
    public var predicate: Predicate<T>?
    /// The order (by token unless given).
    public var sortBy: [SortDescriptor<T>]
    /// The most transactions to return (0: all).
    public var fetchLimit: Int = 0

    /// Creates a descriptor.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
