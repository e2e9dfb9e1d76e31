import Foundation

// The fast reading of the two answers that dominate a device's sync: a zone's changes (every
// import page) and a modify batch's results (every export batch). Same rules as the
// requests' readers: anything unusual declines, and `JSONDecoder` decides. An answer that
// carries an error (a failed item, a failed batch) always declines: errors are rare, and their
// decoding stays in one place.

extension FetchZoneChangesResponse: WireJSONReadable {
    package static func readJSON(_ bytes: UnsafeRawBufferPointer) -> FetchZoneChangesResponse? {
        WireJSONReader.read(bytes) { $0.fetchZoneChangesResponse() }
    }
}

extension ModifyRecordsResponse: WireJSONReadable {
    package static func readJSON(_ bytes: UnsafeRawBufferPointer) -> ModifyRecordsResponse? {
        WireJSONReader.read(bytes) { $0.modifyRecordsResponse() }
    }
}

extension WireJSONReader {
    mutating func fetchZoneChangesResponse() -> FetchZoneChangesResponse? {
        var records: [Record]?
        var deletions: [DeletedRecord]?
        var token: String?
        var moreComing: Bool?
        let ok = members(["records", "deletions", "changeToken", "moreComing"]) { reader, slot in
            switch slot {
            case 0: records = reader.array { $0.record() }; return records != nil
            case 1: deletions = reader.array { $0.deletedRecord() }; return deletions != nil
            case 2: token = reader.string(); return token != nil
            default: moreComing = reader.bool(); return moreComing != nil
            }
        }
        guard ok, let records, let deletions, let token, let moreComing else { return nil }
        return FetchZoneChangesResponse(records: records, deletions: deletions,
                                        changeToken: ChangeToken(rawValue: token), moreComing: moreComing)
    }

    mutating func deletedRecord() -> DeletedRecord? {
        nameAndStamp().map { DeletedRecord(recordName: $0.name, stamp: $0.stamp) }
    }

    mutating func modifyRecordsResponse() -> ModifyRecordsResponse? {
        var results: [RecordResult]?
        var token: String?
        let ok = members(["results", "changeToken", "error"]) { reader, slot in
            switch slot {
            case 0: results = reader.array { $0.recordResult() }; return results != nil
            case 1: token = reader.string(); return token != nil
            default: return reader.null()   // a batch error: JSONDecoder reads it
            }
        }
        guard ok, let results, let token else { return nil }
        return ModifyRecordsResponse(results: results, changeToken: ChangeToken(rawValue: token))
    }

    mutating func recordResult() -> RecordResult? {
        var name: String?
        var status: RecordResult.Status?
        var record: Record?
        let ok = members(["recordName", "status", "record", "error"]) { reader, slot in
            switch slot {
            case 0: name = reader.string(); return name != nil
            case 1: status = reader.string().flatMap(RecordResult.Status.init(rawValue:)); return status != nil
            case 2:
                guard let value = reader.optional({ $0.record() }) else { return false }
                record = value
                return true
            default: return reader.null()   // an item error: JSONDecoder reads it
            }
        }
        guard ok, let name, let status else { return nil }
        return RecordResult(recordName: name, status: status, record: record)
    }
}
