import Foundation
import NimbusWire

/// A `CDMR` record read back: which two records a many-to-many relationship links, and
/// whether the link stands (`CD_linked`; a removed member keeps its record, so that adding it
/// again later is one more edit, merged by its stamp).
struct LinkRecord {
    var key: String
    var first: String
    var second: String
    var linked: Bool
    var stamp: HLCStamp

    init?(_ record: Record) {
        guard record.recordType == MirroredModel.linkRecordType,
              case let .string(key)? = record.fields["CD_relationshipKey"]?.value,
              case let .list(names)? = record.fields["CD_recordNames"]?.value, names.count == 2,
              case let .string(first) = names[0], case let .string(second) = names[1],
              let linkedField = record.fields["CD_linked"], case let .bool(linked)? = linkedField.value else { return nil }
        self.key = key
        self.first = first
        self.second = second
        self.linked = linked
        self.stamp = linkedField.stamp
    }

    /// The relationship on the first record's side (`Entity.relationship|Other.inverse`).
    var firstRelationship: String? {
        key.split(separator: "|").first?.split(separator: ".").last.map(String.init)
    }
}
