/// A field value that points at another record of the same zone by name.
///
/// For example:
/// ```swift
/// let parent = FieldValue.reference(RecordReference(recordName: postID, action: .deleteSelf))
/// ```
public struct RecordReference: Codable, Hashable, Sendable {
    /// What a server does to the referring record when the target is deleted.
    public enum Action: String, Codable, Hashable, Sendable {
        /// Nothing: the reference dangles until a client repairs it.
        case none
        /// Declares that the referring record belongs to its target. The server stores the
        /// action for clients; it does not cascade deletions itself.
        case deleteSelf
    }

    /// The name of the record referred to.
    public var recordName: String
    /// The action recorded with the reference.
    public var action: Action

    /// Creates a reference.
    /// - Parameters:
    ///   - recordName: The target's record name.
    ///   - action: The action on deletion of the target; `.none` by default.
    public init(recordName: String, action: Action = .none) {
        self.recordName = recordName
        self.action = action
    }
}
