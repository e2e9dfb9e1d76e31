import Foundation
import NimbusWire

/// A baseline: a device's whole index as one file (`peers/<peer>/baseline.nbase`), with the
/// logs it covers per peer. A new device folds the baselines in and then only the logs after
/// them; a device compacts its own logs once a baseline covers them and every known peer
/// has imported them.
struct FolderBaseline: Codable, Sendable {
    var format = 1
    var peer: String
    var time: Int64
    /// Per peer, the number up to which every log of that peer is inside ``records``.
    var covered: [String: Int64]
    var records: [Entry]
    /// Per zone, the stamp before which its content was erased.
    var erased: [String: HLCStamp]? = nil

    /// One record or tombstone, as the index holds it.
    struct Entry: Codable, Sendable {
        var zone: String
        var name: String
        var type: String
        var fields: [String: Field]
        var created: RecordStamp?
        var modified: RecordStamp?
        var deletion: HLCStamp?

        init(_ record: IndexedRecord) {
            zone = record.zone
            name = record.name
            type = record.type
            fields = record.fields
            created = record.created
            modified = record.modified
            deletion = record.deletion
        }

        var record: IndexedRecord {
            IndexedRecord(zone: zone, name: name, type: type, fields: fields, created: created, modified: modified, deletion: deletion)
        }
    }
}

extension FolderMerge {
    /// Folds a whole record state (from a baseline) into the index's: the join of the two,
    /// the same as folding every log each was made of. `nil` when nothing changes.
    static func join(_ incoming: IndexedRecord, onto current: IndexedRecord?) -> Outcome? {
        guard var record = current else {
            var record = incoming
            record.seq = 0
            if record.isTombstone { record.fields = [:] }
            return Outcome(record: record, visible: true)
        }
        let before = record
        if record.type.isEmpty { record.type = incoming.type }
        if let created = incoming.created { record.created = earlier(record.created, created) }
        if let modified = incoming.modified { record.modified = later(record.modified, modified) }
        if let deletion = incoming.deletion { record.deletion = max(record.deletion ?? deletion, deletion) }
        if record.isTombstone {
            record.fields = [:]
        } else {
            for (key, field) in incoming.fields where wins(field, over: record.fields[key]) { record.fields[key] = field }
        }
        if record == before { return nil }
        return Outcome(record: record, visible: record.fields != before.fields || record.isTombstone != before.isTombstone)
    }
}
