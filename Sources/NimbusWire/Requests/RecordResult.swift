/// The outcome of one item of a modify batch, in request order (saves, then deletions).
///
/// For example:
/// ```swift
/// for result in response.results where result.status == .saved { remember(result.record!.changeTag) }
/// ```
public struct RecordResult: Codable, Hashable, Sendable {
    /// What happened to the item.
    public enum Status: String, Codable, Hashable, Sendable {
        /// The record was saved; ``RecordResult/record`` is the server's new version.
        case saved
        /// The record was deleted (or already was).
        case deleted
        /// The item failed; see ``RecordResult/error``.
        case failed
    }

    /// The item's record name.
    public var recordName: String
    /// The outcome.
    public var status: Status
    /// The record as saved, for ``Status/saved``.
    public var record: Record?
    /// The failure, for ``Status/failed``.
    public var error: ItemError?

    /// Creates a result.
    /// - Parameters:
    ///   - recordName: The item's name.
    ///   - status: The outcome.
    ///   - record: The saved record.
    ///   - error: The failure.
    public init(recordName: String, status: Status, record: Record? = nil, error: ItemError? = nil) {
        self.recordName = recordName
        self.status = status
        self.record = record
        self.error = error
    }
}
