/// A request to delete one record, stamped with the deleting device's clock.
///
/// Deletions become tombstones that win over later saves of the same name.
///
/// For example:
/// ```swift
/// let deletion = RecordDeletion(recordName: id, stamp: HLCStamp(time: now, device: "phone"))
/// ```
public struct RecordDeletion: Codable, Hashable, Sendable {
    /// The name of the record to delete.
    public var recordName: String
    /// The stamp of the deletion.
    public var stamp: HLCStamp

    /// Creates a deletion.
    /// - Parameters:
    ///   - recordName: The record to delete.
    ///   - stamp: The stamp of the deletion.
    public init(recordName: String, stamp: HLCStamp) {
        self.recordName = recordName
        self.stamp = stamp
    }
}
