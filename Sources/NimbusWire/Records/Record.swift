/// A record: a named, typed bag of fields in a zone.
///
/// Clients choose ``recordName`` (usually a UUID string) and ``recordType`` and fill
/// ``fields``. The server assigns ``changeTag``, ``created`` and ``modified`` on every
/// accepted save; send the ``changeTag`` you last saw back with the
/// ``SavePolicy/ifServerRecordUnchanged`` policy to save only over that version.
///
/// For example:
/// ```swift
/// var post = Record(recordName: UUID().uuidString, recordType: "Post")
/// post.fields["title"] = Field(.string("Hello"), stamp: stamp)
/// ```
public struct Record: Codable, Hashable, Sendable {
    /// The client-chosen name, unique in its zone.
    public var recordName: String
    /// The record's type, for example `CD_Post`.
    public var recordType: String
    /// The fields by key.
    public var fields: [String: Field]
    /// The server's version tag; `nil` for a record never saved.
    public var changeTag: String?
    /// When and by whom the record was first saved.
    public var created: RecordStamp?
    /// When and by whom the record was last saved.
    public var modified: RecordStamp?

    /// Creates a record.
    /// - Parameters:
    ///   - recordName: The client-chosen name.
    ///   - recordType: The type.
    ///   - fields: The fields; empty by default.
    ///   - changeTag: The server's version tag, if the record came from the server.
    ///   - created: The creation stamp, if known.
    ///   - modified: The modification stamp, if known.
    public init(
        recordName: String,
        recordType: String,
        fields: [String: Field] = [:],
        changeTag: String? = nil,
        created: RecordStamp? = nil,
        modified: RecordStamp? = nil
    ) {
        self.recordName = recordName
        self.recordType = recordType
        self.fields = fields
        self.changeTag = changeTag
        self.created = created
        self.modified = modified
    }

    /// Every asset the record's fields refer to.
    public var assetReferences: [AssetReference] {
        fields.values.flatMap { $0.value?.assetReferences ?? [] }
    }
}
