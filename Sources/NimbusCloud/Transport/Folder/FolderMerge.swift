import Foundation
import NimbusWire

/// A record as a device's folder index holds it: the fold of every log entry about it.
struct IndexedRecord: Sendable, Equatable {
    var zone: String
    var name: String
    var type: String
    var fields: [String: Field]
    /// The earliest save's stamp (its device first saved the record).
    var created: RecordStamp?
    /// The latest save's stamp.
    var modified: RecordStamp?
    /// The latest deletion's stamp, for a tombstone.
    var deletion: HLCStamp?
    /// The index's change sequence number of its last visible change.
    var seq: Int64 = 0

    var isTombstone: Bool { deletion != nil }

    /// The record as the engine sees it (as a server would answer), with the index's change tag.
    func wire(indexID: String) -> Record {
        Record(recordName: name, recordType: type, fields: isTombstone ? [:] : fields,
               changeTag: "\(indexID).\(seq)", created: created, modified: modified)
    }
}

/// The merge rules of a folder index, pure: a log entry folded into a record's state.
///
/// The rules make the fold commutative, associative and idempotent, so that every device
/// that has read the same logs holds the same records whatever order they came in:
/// per field the later ``HLCStamp`` wins (ties by device id); a deletion wins over every
/// save (a tombstone stays); `created` is the earliest save, `modified` the latest.
enum FolderMerge {
    /// The outcome of folding one entry: the new state, and whether the engine sees a change
    /// (a visible change takes a new change sequence number).
    struct Outcome: Equatable {
        var record: IndexedRecord
        var visible: Bool
    }

    /// Folds a save; `nil` when nothing changes (the entry was folded in before).
    static func save(_ incoming: Record, at: RecordStamp, zone: String, onto current: IndexedRecord?) -> Outcome? {
        guard var record = current else {
            return Outcome(record: IndexedRecord(zone: zone, name: incoming.recordName, type: incoming.recordType,
                                                 fields: incoming.fields, created: at, modified: at), visible: true)
        }
        let before = record
        if record.type.isEmpty { record.type = incoming.recordType }
        record.created = earlier(record.created, at)
        record.modified = later(record.modified, at)
        if !record.isTombstone {
            for (key, field) in incoming.fields where wins(field, over: record.fields[key]) { record.fields[key] = field }
        }
        if record == before { return nil }
        return Outcome(record: record, visible: !record.isTombstone && record.fields != before.fields)
    }

    /// Folds a deletion; `nil` when nothing changes.
    static func delete(_ deletion: RecordDeletion, zone: String, onto current: IndexedRecord?) -> Outcome? {
        guard var record = current else {
            // The deletion came before the saves it deletes: the tombstone waits for them.
            return Outcome(record: IndexedRecord(zone: zone, name: deletion.recordName, type: "", fields: [:],
                                                 deletion: deletion.stamp), visible: true)
        }
        let before = record
        let wasTombstone = record.isTombstone
        record.deletion = max(record.deletion ?? deletion.stamp, deletion.stamp)
        record.fields = [:]
        if record == before { return nil }
        return Outcome(record: record, visible: !wasTombstone)
    }

    /// Whether `field` replaces `existing`: the later stamp wins; two values under one stamp
    /// (which a device's clock never gives, but a hand-made or damaged log may) are ordered by
    /// their text, so that every device keeps the same one.
    static func wins(_ field: Field, over existing: Field?) -> Bool {
        guard let existing else { return true }
        if field.stamp != existing.stamp { return field.stamp > existing.stamp }
        return String(describing: field.value) > String(describing: existing.value)
    }

    static func earlier(_ a: RecordStamp?, _ b: RecordStamp) -> RecordStamp {
        guard let a else { return b }
        return (a.time, a.device) <= (b.time, b.device) ? a : b
    }

    static func later(_ a: RecordStamp?, _ b: RecordStamp) -> RecordStamp {
        guard let a else { return b }
        return (a.time, a.device) >= (b.time, b.device) ? a : b
    }
}
