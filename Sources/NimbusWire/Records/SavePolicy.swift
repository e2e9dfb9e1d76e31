/// How the server treats a save over an existing record.
///
/// For example:
/// ```swift
/// let request = ModifyRecordsRequest(saves: [post], savePolicy: .changedKeys)
/// ```
public enum SavePolicy: String, Codable, Hashable, Sendable {
    /// Compare and swap on ``Record/changeTag``: the save succeeds only if the tag matches
    /// the server's (or the record is new and the tag is `nil`); otherwise the item fails
    /// with ``WireError/Code/serverRecordChanged`` carrying the server's record.
    case ifServerRecordUnchanged
    /// Merge field by field: for each field the value with the later ``HLCStamp`` wins;
    /// fields the request leaves out are kept.
    case changedKeys
    /// Replace every field with the request's, whatever the server holds.
    case allKeys
}
