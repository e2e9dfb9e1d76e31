import Foundation

// The fast reading of each wire type, mirroring its `Decodable` conformance: required keys
// must be present, `decodeIfPresent` keys may be missing or null, unknown keys are skipped,
// and a key seen twice declines (so that `JSONDecoder` decides).

/// A wire type that ``WireJSONReader`` can read without `Decodable`.
///
/// For example:
/// ```swift
/// let request = data.withUnsafeBytes { ModifyRecordsRequest.readJSON($0) }
/// ```
package protocol WireJSONReadable {
    /// The value the JSON holds, or `nil` when `JSONDecoder` must decide.
    static func readJSON(_ bytes: UnsafeRawBufferPointer) -> Self?
}

extension ModifyRecordsRequest: WireJSONReadable {
    package static func readJSON(_ bytes: UnsafeRawBufferPointer) -> ModifyRecordsRequest? {
        WireJSONReader.read(bytes) { $0.modifyRecordsRequest() }
    }
}

/// The fields of a record as the server stores them.
package enum FieldsJSON {
    /// The fields the JSON holds, or `nil` when `JSONDecoder` must decide.
    package static func read(_ bytes: UnsafeRawBufferPointer) -> [String: Field]? {
        WireJSONReader.read(bytes) { $0.fields() }
    }
}

extension WireJSONReader {
    /// Reads an object whose keys are among `keys`, each at most once.
    mutating func members(_ keys: [String], _ member: (inout WireJSONReader, Int) -> Bool) -> Bool {
        var seen = 0
        return object { reader, key in
            guard let slot = keys.firstIndex(of: key) else { return reader.skipValue() }
            guard seen & (1 << slot) == 0 else { return false }
            seen |= 1 << slot
            return member(&reader, slot)
        }
    }

    /// A value for a `decodeIfPresent` key: `.some(nil)` for null.
    mutating func optional<T>(_ read: (inout WireJSONReader) -> T?) -> T?? {
        if null() { return .some(nil) }
        return read(&self).map { .some($0) }
    }

    mutating func modifyRecordsRequest() -> ModifyRecordsRequest? {
        var request = ModifyRecordsRequest()
        let ok = members(["saves", "deletions", "savePolicy", "atomic"]) { reader, slot in
            switch slot {
            case 0:
                guard let saves = reader.optional({ $0.array { $0.record() } }) else { return false }
                request.saves = saves ?? []
            case 1:
                guard let deletions = reader.optional({ $0.array { $0.recordDeletion() } }) else { return false }
                request.deletions = deletions ?? []
            case 2:
                guard let policy = reader.optional({ $0.string().flatMap(SavePolicy.init(rawValue:)) }) else { return false }
                request.savePolicy = policy ?? .ifServerRecordUnchanged
            default:
                guard let atomic = reader.optional({ $0.bool() }) else { return false }
                request.atomic = atomic ?? false
            }
            return true
        }
        return ok ? request : nil
    }

    mutating func record() -> Record? {
        var name: String?
        var type: String?
        var fields: [String: Field]?
        var record = Record(recordName: "", recordType: "")
        let ok = members(["recordName", "recordType", "fields", "changeTag", "created", "modified"]) { reader, slot in
            switch slot {
            case 0: name = reader.string(); return name != nil
            case 1: type = reader.string(); return type != nil
            case 2: fields = reader.fields(); return fields != nil
            case 3:
                guard let tag = reader.optional({ $0.string() }) else { return false }
                record.changeTag = tag
            case 4:
                guard let stamp = reader.optional({ $0.recordStamp() }) else { return false }
                record.created = stamp
            default:
                guard let stamp = reader.optional({ $0.recordStamp() }) else { return false }
                record.modified = stamp
            }
            return true
        }
        guard ok, let name, let type, let fields else { return nil }
        record.recordName = name
        record.recordType = type
        record.fields = fields
        return record
    }

    mutating func fields() -> [String: Field]? {
        var fields: [String: Field] = [:]
        let ok = object { reader, key in
            guard fields[key] == nil, let field = reader.field() else { return false }
            fields[key] = field
            return true
        }
        return ok ? fields : nil
    }

    mutating func field() -> Field? {
        var value: FieldValue??
        var stamp: HLCStamp?
        let ok = members(["value", "stamp"]) { reader, slot in
            if slot == 0 {
                value = reader.optional { $0.fieldValue() }
                return value != nil
            }
            stamp = reader.hlcStamp()
            return stamp != nil
        }
        guard ok, let stamp else { return nil }
        return Field(value ?? nil, stamp: stamp)
    }

    mutating func fieldValue() -> FieldValue? {
        var type: String?
        var valueAt: Int?
        let ok = members(["type", "value"]) { reader, slot in
            if slot == 0 {
                type = reader.string()
                return type != nil
            }
            reader.skipWhitespace()
            valueAt = reader.position
            return reader.skipValue()
        }
        guard ok, let type, let valueAt else { return nil }
        var reader = reader(at: valueAt)
        switch type {
        case "string": return reader.string().map(FieldValue.string)
        case "int64": return reader.int64().map(FieldValue.int64)
        case "double": return reader.number().map(FieldValue.double)
        case "bool": return reader.bool().map(FieldValue.bool)
        case "date": return reader.number().map { .date(Date(timeIntervalSince1970: $0)) }
        case "bytes": return reader.string().flatMap { Data(base64Encoded: $0) }.map(FieldValue.bytes)
        case "asset": return reader.assetReference().map(FieldValue.asset)
        case "reference": return reader.recordReference().map(FieldValue.reference)
        case "list": return reader.array { $0.fieldValue() }.map(FieldValue.list)
        default: return nil
        }
    }

    /// A field's number: a JSON number, or one of the strings NaN and the infinities travel as.
    mutating func number() -> Double? {
        if let value = double() { return value }
        return string().flatMap(FieldValue.nonFinite(named:))
    }

    mutating func hlcStamp() -> HLCStamp? {
        guard let (time, device) = timeAndDevice() else { return nil }
        return HLCStamp(time: time, device: device)
    }

    mutating func recordStamp() -> RecordStamp? {
        guard let (time, device) = timeAndDevice() else { return nil }
        return RecordStamp(time: time, device: device)
    }

    private mutating func timeAndDevice() -> (Int64, String)? {
        var time: Int64?
        var device: String?
        let ok = members(["time", "device"]) { reader, slot in
            if slot == 0 {
                time = reader.int64()
                return time != nil
            }
            device = reader.string()
            return device != nil
        }
        guard ok, let time, let device else { return nil }
        return (time, device)
    }

    mutating func recordDeletion() -> RecordDeletion? {
        nameAndStamp().map { RecordDeletion(recordName: $0.name, stamp: $0.stamp) }
    }

    /// `{"recordName": …, "stamp": …}`: a deletion, sent or received.
    mutating func nameAndStamp() -> (name: String, stamp: HLCStamp)? {
        var name: String?
        var stamp: HLCStamp?
        let ok = members(["recordName", "stamp"]) { reader, slot in
            if slot == 0 {
                name = reader.string()
                return name != nil
            }
            stamp = reader.hlcStamp()
            return stamp != nil
        }
        guard ok, let name, let stamp else { return nil }
        return (name, stamp)
    }

    mutating func assetReference() -> AssetReference? {
        var checksum: String?
        var size: Int64?
        let ok = members(["checksum", "size"]) { reader, slot in
            if slot == 0 {
                checksum = reader.string()
                return checksum != nil
            }
            size = reader.int64()
            return size != nil
        }
        guard ok, let checksum, let size else { return nil }
        return AssetReference(checksum: checksum, size: size)
    }

    mutating func recordReference() -> RecordReference? {
        var name: String?
        var action: RecordReference.Action?
        let ok = members(["recordName", "action"]) { reader, slot in
            if slot == 0 {
                name = reader.string()
                return name != nil
            }
            action = reader.string().flatMap(RecordReference.Action.init(rawValue:))
            return action != nil
        }
        guard ok, let name, let action else { return nil }
        return RecordReference(recordName: name, action: action)
    }
}
