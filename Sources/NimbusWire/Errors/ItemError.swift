/// The failure of one item of a batch.
///
/// For example:
/// ```swift
/// for item in error.itemErrors ?? [] where item.code == .serverRecordChanged {
///     resolve(item.serverRecord)
/// }
/// ```
public struct ItemError: Codable, Hashable, Sendable {
    /// The record (or zone) name of the item.
    public var name: String
    /// Why it failed.
    public var code: WireError.Code
    /// A human-readable explanation.
    public var message: String
    /// The server's record, for ``WireError/Code/serverRecordChanged``; for
    /// ``WireError/Code/unknownItem`` on a save over a deleted record, the tombstone (no
    /// fields; its `created` stamp names the device that first saved the record).
    public var serverRecord: Record?

    /// Creates an item error.
    /// - Parameters:
    ///   - name: The item's record or zone name.
    ///   - code: The code.
    ///   - message: The explanation.
    ///   - serverRecord: The server's record, for conflicts.
    public init(name: String, code: WireError.Code, message: String, serverRecord: Record? = nil) {
        self.name = name
        self.code = code
        self.message = message
        self.serverRecord = serverRecord
    }
}
