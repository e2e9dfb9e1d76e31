import Foundation

/// Fetches or purges a store's persistent history.
///
/// ```swift
/// let request = PersistentHistoryChangeRequest.fetchHistory(after: lastToken)
/// let result = try context.execute(request)
/// for transaction in result.transactions { context.mergeChanges(fromHistory: [transaction]) }
/// ```
public struct PersistentHistoryChangeRequest: Sendable {
    /// What the request returns.
    public enum ResultType: Sendable, Hashable {
        /// Whether it succeeded.
        case statusOnly
        /// The number of transactions fetched or purged.
        case count
        /// Transactions without their changes.
        case transactionsOnly
        /// Transactions with their changes (the default).
        case transactionsAndChanges
    }

    /// Where history starts or ends.
    public enum Bound: Sendable, Hashable {
        /// After (or up to and including) a token; nil means the beginning.
        case token(PersistentHistoryToken?)
        /// After (or before) a moment.
        case date(Date)
        /// After (or up to and including) a transaction number.
        case transaction(Int64)
    }

    enum Operation: Sendable, Hashable {
        case fetch(after: Bound)
        case delete(before: Bound)
    }

    let operation: Operation
    /// What the request returns.
    public var resultType: ResultType = .transactionsAndChanges
    /// Keeps only transactions matching this predicate, over `author`, `contextName`,
    /// `bundleID`, `processID`, `timestamp` and `transactionNumber`.
    public var transactionPredicate: QueryPredicate?
    /// Keeps only changes matching this predicate, over `changedEntity` (the entity name),
    /// `changeType` (0 insert, 1 update, 2 delete) and `updatedProperties`.
    public var changePredicate: QueryPredicate?
    /// For purges: remove history even when a registered consumer has not read it.
    public var ignoresConsumers = false

    /// History after a token (all history for nil).
    public static func fetchHistory(after token: PersistentHistoryToken?) -> Self { Self(operation: .fetch(after: .token(token))) }
    /// History after a moment.
    public static func fetchHistory(after date: Date) -> Self { Self(operation: .fetch(after: .date(date))) }
    /// History after a transaction.
    public static func fetchHistory(after transaction: PersistentHistoryTransaction) -> Self {
        Self(operation: .fetch(after: .token(transaction.token)))
    }
    /// Purges history up to and including a token.
    public static func deleteHistory(before token: PersistentHistoryToken?) -> Self { Self(operation: .delete(before: .token(token))) }
    /// Purges history older than a moment.
    public static func deleteHistory(before date: Date) -> Self { Self(operation: .delete(before: .date(date))) }
    /// Purges history up to and including a transaction.
    public static func deleteHistory(before transaction: PersistentHistoryTransaction) -> Self {
        Self(operation: .delete(before: .token(transaction.token)))
    }
}

/// What a history request returned.
public struct PersistentHistoryResult: Sendable {
    /// Whether the request succeeded.
    public var status = true
    /// Transactions fetched or purged.
    public var count = 0
    /// The transactions (for fetches with transaction result types).
    public var transactions: [PersistentHistoryTransaction] = []
}
