import Foundation
import NimbusWire

/// What a modify batch does to a zone: the rows to write and the result of each item.
package struct ModifyPlan: Sendable {
    /// One result per item: saves first, then deletions, in request order.
    package var results: [RecordResult]
    /// Rows to upsert, each with its new sequence number.
    package var writes: [StoredRecord]
    /// The change in stored bytes.
    package var byteDelta: Int64
    /// The zone's sequence after the batch.
    package var newSeq: Int64

    package var hasFailures: Bool { results.contains { $0.status == .failed } }
    package var failures: [ItemError] { results.compactMap(\.error) }
}

/// The pure decision of a modify batch, shared by every backend.
///
/// A backend locks the zone, loads the rows the batch names (tombstones included), asks the
/// planner, and writes ``ModifyPlan/writes`` in the same transaction. No I/O happens here,
/// so the semantics (compare-and-swap, field merge by stamp, deletions winning) are tested
/// once and hold on every backend.
package enum ModifyPlanner {
    package static func plan(
        _ request: ModifyRecordsRequest,
        existing: [String: StoredRecord],
        zone: ZoneState,
        device: String,
        now: Int64
    ) -> ModifyPlan {
        var seq = zone.seq
        var results: [RecordResult] = []
        var writes: [StoredRecord] = []
        var byteDelta: Int64 = 0
        let modified = RecordStamp(time: now, device: device)

        func nextTag() -> (Int64, String) {
            seq += 1
            return (seq, ChangeTokenCodec.changeTag(zoneIncarnation: zone.incarnation, seq: seq))
        }

        for incoming in request.saves {
            let current = existing[incoming.recordName]
            switch decideSave(incoming, current: current, policy: request.savePolicy) {
            case .failure(let error):
                results.append(RecordResult(recordName: incoming.recordName, status: .failed, error: error))
            case .unchanged(let record):
                results.append(RecordResult(recordName: incoming.recordName, status: .saved, record: record.wire))
            case .write(let fields):
                let encoded = (try? FieldsCoding.encode(fields)) ?? Data()
                let size = Int64(encoded.count + incoming.recordName.utf8.count + incoming.recordType.utf8.count)
                if size > Int64(ModifyRecordsRequest.maximumRecordBytes) {
                    results.append(RecordResult(
                        recordName: incoming.recordName, status: .failed,
                        error: ItemError(
                            name: incoming.recordName, code: .limitExceeded,
                            message: "The merged record would be \(size) bytes; a record holds at most \(ModifyRecordsRequest.maximumRecordBytes). Move large values to assets.")))
                    continue
                }
                let (rowSeq, tag) = nextTag()
                let row = StoredRecord(
                    recordName: incoming.recordName, recordType: incoming.recordType, fields: fields,
                    changeTag: tag, seq: rowSeq, created: current?.created ?? modified, modified: modified,
                    deletion: nil, size: size, encodedFields: encoded)
                byteDelta += size - (current?.size ?? 0)
                writes.append(row)
                results.append(RecordResult(recordName: incoming.recordName, status: .saved, record: row.wire))
            }
        }

        for deletion in request.deletions {
            guard let current = existing[deletion.recordName] else {
                results.append(RecordResult(
                    recordName: deletion.recordName, status: .failed,
                    error: ItemError(name: deletion.recordName, code: .unknownItem, message: "No record named '\(deletion.recordName)' exists in this zone.")))
                continue
            }
            if current.isTombstone {
                results.append(RecordResult(recordName: deletion.recordName, status: .deleted))
                continue
            }
            let (rowSeq, tag) = nextTag()
            writes.append(StoredRecord(
                recordName: current.recordName, recordType: current.recordType, fields: [:], changeTag: tag,
                seq: rowSeq, created: current.created, modified: modified, deletion: deletion.stamp, size: 0))
            byteDelta -= current.size
            results.append(RecordResult(recordName: deletion.recordName, status: .deleted))
        }

        var plan = ModifyPlan(results: results, writes: writes, byteDelta: byteDelta, newSeq: seq)
        if request.atomic && plan.hasFailures {
            plan = failWhole(plan, zone: zone)
        }
        return plan
    }

    /// Turns a plan with failures into an atomic failure: nothing is written, and the items
    /// that would have succeeded fail with `batchRequestFailed`.
    private static func failWhole(_ plan: ModifyPlan, zone: ZoneState) -> ModifyPlan {
        let results = plan.results.map { result -> RecordResult in
            if result.status == .failed { return result }
            return RecordResult(
                recordName: result.recordName, status: .failed,
                error: ItemError(name: result.recordName, code: .batchRequestFailed, message: "Not applied: another item of this atomic batch failed."))
        }
        return ModifyPlan(results: results, writes: [], byteDelta: 0, newSeq: zone.seq)
    }

    private enum SaveDecision {
        case failure(ItemError)
        case unchanged(StoredRecord)
        case write([String: Field])
    }

    private static func decideSave(_ incoming: Record, current: StoredRecord?, policy: SavePolicy) -> SaveDecision {
        let name = incoming.recordName
        guard let current else {
            // A save that carries a change tag speaks of a record the server once had: its
            // deletion's tombstone is gone (older than the horizon), and deletion still wins.
            if policy != .allKeys, let tag = incoming.changeTag {
                return .failure(ItemError(
                    name: name, code: .unknownItem,
                    message: "The record has change tag '\(tag)' but the server has no record named '\(name)'. Save it without a change tag to create it."))
            }
            return .write(incoming.fields)
        }
        if current.isTombstone {
            // The tombstone goes along (no fields): its creation stamp tells a device whose
            // first save's answer was lost whether the deleted record was its own.
            let tombstone = Record(recordName: name, recordType: current.recordType, fields: [:], changeTag: current.changeTag,
                                   created: current.created, modified: current.modified)
            return .failure(ItemError(
                name: name, code: .unknownItem,
                message: "The record '\(name)' was deleted; a deletion wins over later saves. Save under a new record name to recreate it.",
                serverRecord: tombstone))
        }
        if incoming.recordType != current.recordType {
            return .failure(ItemError(
                name: name, code: .invalidArguments,
                message: "The record '\(name)' has type '\(current.recordType)' on the server; a record's type cannot change to '\(incoming.recordType)'."))
        }
        switch policy {
        case .ifServerRecordUnchanged:
            guard incoming.changeTag == current.changeTag else {
                return .failure(ItemError(
                    name: name, code: .serverRecordChanged,
                    message: "The server's record has changed (change tag '\(current.changeTag)', the save sent '\(incoming.changeTag ?? "none")'). Merge with the server record and save again.",
                    serverRecord: current.wire))
            }
            return incoming.fields == current.fields ? .unchanged(current) : .write(incoming.fields)
        case .allKeys:
            return incoming.fields == current.fields ? .unchanged(current) : .write(incoming.fields)
        case .changedKeys:
            let merged = merge(current.fields, incoming.fields)
            return merged == current.fields ? .unchanged(current) : .write(merged)
        }
    }

    /// Merges field by field: per key, the field with the later stamp wins (ties broken by
    /// device id through ``HLCStamp``'s order); keys on one side only are kept.
    package static func merge(_ server: [String: Field], _ incoming: [String: Field]) -> [String: Field] {
        var merged = server
        for (key, field) in incoming {
            if let existing = merged[key], existing.stamp >= field.stamp { continue }
            merged[key] = field
        }
        return merged
    }

    /// The bytes a record counts for: the JSON of its fields plus its name and type.
    package static func recordSize(name: String, type: String, fields: [String: Field]) -> Int64 {
        let fieldBytes = (try? FieldsCoding.encode(fields).count) ?? 0
        return Int64(fieldBytes + name.utf8.count + type.utf8.count)
    }
}
