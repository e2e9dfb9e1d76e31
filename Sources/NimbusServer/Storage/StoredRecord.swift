import Foundation
import NimbusWire

/// A record row as the backends store it: the wire record's content plus the zone sequence
/// of its last change and, for a tombstone, the deletion stamp.
package struct StoredRecord: Hashable, Sendable {
    package var recordName: String
    package var recordType: String
    package var fields: [String: Field]
    package var changeTag: String
    package var seq: Int64
    package var created: RecordStamp
    package var modified: RecordStamp
    /// The deletion stamp of a tombstone; `nil` for a live record.
    package var deletion: HLCStamp?
    /// Bytes counted against the owner's quota (the JSON of the fields; 0 for a tombstone).
    package var size: Int64
    /// The fields' JSON, when already encoded (saves re-use the planner's encoding).
    package var encodedFields: Data?

    package init(
        recordName: String, recordType: String, fields: [String: Field], changeTag: String, seq: Int64,
        created: RecordStamp, modified: RecordStamp, deletion: HLCStamp?, size: Int64, encodedFields: Data? = nil
    ) {
        self.recordName = recordName
        self.recordType = recordType
        self.fields = fields
        self.changeTag = changeTag
        self.seq = seq
        self.created = created
        self.modified = modified
        self.deletion = deletion
        self.size = size
        self.encodedFields = encodedFields
    }

    /// The fields' JSON as stored.
    package func fieldsJSON() throws -> Data {
        try encodedFields ?? FieldsCoding.encode(fields)
    }

    package var isTombstone: Bool { deletion != nil }

    /// The record as clients see it.
    package var wire: Record {
        Record(
            recordName: recordName, recordType: recordType, fields: fields, changeTag: changeTag,
            created: created, modified: modified)
    }

    /// Every asset checksum the fields refer to.
    package var assetChecksums: Set<String> {
        Set(fields.values.flatMap { $0.value?.assetReferences ?? [] }.map(\.checksum))
    }
}

/// The JSON encoding of record fields, shared by both backends so that sizes agree.
package enum FieldsCoding {
    /// The fields' JSON with sorted keys (the same bytes `JSONEncoder` with `.sortedKeys`
    /// writes, so sizes of rows written before and after agree).
    package static func encode(_ fields: [String: Field]) throws -> Data {
        var writer = WireJSONWriter(capacity: 64 * fields.count + 16)
        try writer.object(fields)
        return writer.data
    }

    package static func decode(_ data: Data) throws -> [String: Field] {
        if let fields = data.withUnsafeBytes({ FieldsJSON.read($0) }) { return fields }
        return try JSONDecoder().decode([String: Field].self, from: data)
    }
}
