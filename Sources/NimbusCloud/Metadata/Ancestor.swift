import Foundation
import GRDB
import struct NimbusWire.Record
import NimbusWire

/// The ancestor of a mirrored object: the record as the server confirmed it, every field
/// with its stamp, including fields this app version doesn't know.
///
/// It also says which remote edits are already applied: an incoming field whose stamp is
/// not later than the ancestor's is old news.
enum Ancestor {
    /// After an export: the fields that were sent, where the server kept them, take the
    /// server's version (other fields may hold remote edits not imported yet, so they keep
    /// the old ancestor's).
    static func merge(_ record: Record, sent: [String: HLCStamp], _ db: Database) throws {
        guard let row = try SyncMetadata.record(named: record.recordName, db) else { return }
        var ancestor = row.ancestor ?? Record(recordName: record.recordName, recordType: record.recordType)
        for (property, stamp) in sent {
            let keys = property == PendingFields.entityKey
                ? [MirroredModel.entityNameField]
                : [MirroredModel.fieldName(property), MirroredModel.assetFieldName(property)]
            // A field the server kept from a later edit elsewhere is not ours: the import applies it.
            for key in keys { if let field = record.fields[key], field.stamp == stamp { ancestor.fields[key] = field } }
        }
        ancestor.changeTag = record.changeTag
        ancestor.created = record.created
        ancestor.modified = record.modified
        try SyncMetadata.confirm(ancestor, db)
    }

    /// After an import: every field takes the later of the ancestor's and the server's.
    static func mergeAll(_ record: Record, into ancestor: Record?) -> Record {
        guard var merged = ancestor else { return record }
        for (key, field) in record.fields where merged.fields[key].map({ $0.stamp < field.stamp }) ?? true {
            merged.fields[key] = field
        }
        merged.changeTag = record.changeTag
        merged.created = record.created
        merged.modified = record.modified
        return merged
    }

    /// Whether the server's record holds the edit stamped `stamp` for a property.
    static func holds(_ record: Record, field property: String, stamp: HLCStamp) -> Bool {
        if property == PendingFields.entityKey { return record.fields[MirroredModel.entityNameField]?.stamp == stamp }
        return record.fields[MirroredModel.fieldName(property)]?.stamp == stamp
            || record.fields[MirroredModel.assetFieldName(property)]?.stamp == stamp
    }
}
