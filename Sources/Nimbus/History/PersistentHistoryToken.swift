import Foundation

/// A position in a store's persistent history: save it, and fetch what happened after it.
///
/// Tokens are `Codable` (store them across launches) and `Comparable` within one store.
/// For example:
///
/// ```swift
/// let data = try JSONEncoder().encode(token)
/// let again = try JSONDecoder().decode(PersistentHistoryToken.self, from: data)
/// ```
public struct PersistentHistoryToken: Codable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The store the position belongs to.
    public let storeIdentifier: String
    /// The transaction number (`ATRANSACTION.Z_PK`); history after the token starts above it.
    public let transactionNumber: Int64

    /// Creates a token.
    public init(storeIdentifier: String, transactionNumber: Int64) {
        self.storeIdentifier = storeIdentifier
        self.transactionNumber = transactionNumber
    }

    /// Tokens of one store order by transaction; tokens of different stores by store ID.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        if lhs.storeIdentifier != rhs.storeIdentifier { return lhs.storeIdentifier < rhs.storeIdentifier }
        return lhs.transactionNumber < rhs.transactionNumber
    }

    /// The text form, `<store UUID>:<transaction>`, as the CLI prints and reads it.
    public var description: String { "\(storeIdentifier):\(transactionNumber)" }

    /// Parses the text form.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidToken`` when malformed.
    public init(string: String) throws {
        let parts = string.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, UUID(uuidString: String(parts[0])) != nil, let number = Int64(parts[1]), number >= 0 else {
            throw NimbusError(.invalidToken, "'\(string)' is not a history token (expected <store UUID>:<transaction number>)")
        }
        self.init(storeIdentifier: String(parts[0]), transactionNumber: number)
    }
}
