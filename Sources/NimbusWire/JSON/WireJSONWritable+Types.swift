import Foundation

// The fast JSON of each wire type. Members are written in the order `.sortedKeys` puts them
// (UTF-8 byte order), optionals that `Encodable` leaves out are left out, and types whose
// `encode(to:)` is custom follow it (a `Field` writes `"value":null` when cleared).

extension HLCStamp: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        writer.object { writer in
            writer.member("device", device)
            writer.member("time", time)
        }
    }
}

extension RecordStamp: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        writer.object { writer in
            writer.member("device", device)
            writer.member("time", time)
        }
    }
}

extension AssetReference: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        writer.object { writer in
            writer.member("checksum", checksum)
            writer.member("size", size)
        }
    }
}

extension RecordReference: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        writer.object { writer in
            writer.member("action", action.rawValue)
            writer.member("recordName", recordName)
        }
    }
}

extension FieldValue: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        try writer.object { writer in
            writer.member("type", typeName)
            writer.key("value")
            switch self {
            case .string(let value): writer.string(value)
            case .int64(let value): writer.int(value)
            case .double(let value): try writer.number(value)
            case .bool(let value): writer.bool(value)
            case .date(let value): try writer.number(value.timeIntervalSince1970)
            case .bytes(let value): writer.string(value.base64EncodedString())
            case .asset(let value): try value.write(to: &writer)
            case .reference(let value): try value.write(to: &writer)
            case .list(let values): try writer.array(values)
            }
        }
    }
}

extension Field: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        try writer.object { writer in
            try writer.member("stamp", stamp)
            writer.key("value")
            if let value { try value.write(to: &writer) } else { writer.raw("null") }
        }
    }
}

extension Record: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        try writer.object { writer in
            writer.member("changeTag", ifPresent: changeTag)
            try writer.member("created", ifPresent: created)
            writer.key("fields")
            try writer.object(fields)
            try writer.member("modified", ifPresent: modified)
            writer.member("recordName", recordName)
            writer.member("recordType", recordType)
        }
    }
}

extension RecordDeletion: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        try writer.object { writer in
            writer.member("recordName", recordName)
            try writer.member("stamp", stamp)
        }
    }
}

extension DeletedRecord: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        try writer.object { writer in
            writer.member("recordName", recordName)
            try writer.member("stamp", stamp)
        }
    }
}

extension RecordResult: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        try writer.object { writer in
            try writer.member("error", encoding: error)
            try writer.member("record", ifPresent: record)
            writer.member("recordName", recordName)
            writer.member("status", status.rawValue)
        }
    }
}

extension ModifyRecordsRequest: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        try writer.object { writer in
            writer.member("atomic", atomic)
            try writer.member("deletions", deletions)
            writer.member("savePolicy", savePolicy.rawValue)
            try writer.member("saves", saves)
        }
    }
}

extension ModifyRecordsResponse: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        try writer.object { writer in
            writer.member("changeToken", changeToken.rawValue)
            try writer.member("error", encoding: error)
            try writer.member("results", results)
        }
    }
}

extension FetchZoneChangesResponse: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        try writer.object { writer in
            writer.member("changeToken", changeToken.rawValue)
            try writer.member("deletions", deletions)
            writer.member("moreComing", moreComing)
            try writer.member("records", records)
        }
    }
}
