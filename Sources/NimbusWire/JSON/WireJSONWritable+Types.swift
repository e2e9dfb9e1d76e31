import Foundation

// The fast JSON of each wire type. Keys are written in the order `.sortedKeys` puts them
// (UTF-8 byte order), optionals that `Encodable` leaves out are left out, and types whose
// `encode(to:)` is custom follow it (a `Field` writes `"value":null` when cleared).

extension HLCStamp: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        var first = true
        writer.raw("{")
        writer.key("device", first: &first)
        writer.string(device)
        writer.key("time", first: &first)
        writer.int(time)
        writer.raw("}")
    }
}

extension RecordStamp: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        var first = true
        writer.raw("{")
        writer.key("device", first: &first)
        writer.string(device)
        writer.key("time", first: &first)
        writer.int(time)
        writer.raw("}")
    }
}

extension AssetReference: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        var first = true
        writer.raw("{")
        writer.key("checksum", first: &first)
        writer.string(checksum)
        writer.key("size", first: &first)
        writer.int(size)
        writer.raw("}")
    }
}

extension RecordReference: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        var first = true
        writer.raw("{")
        writer.key("action", first: &first)
        writer.string(action.rawValue)
        writer.key("recordName", first: &first)
        writer.string(recordName)
        writer.raw("}")
    }
}

extension FieldValue: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        var first = true
        writer.raw("{")
        writer.key("type", first: &first)
        writer.string(typeName)
        writer.key("value", first: &first)
        switch self {
        case .string(let value): writer.string(value)
        case .int64(let value): writer.int(value)
        case .double(let value): try writer.double(value)
        case .bool(let value): writer.bool(value)
        case .date(let value): try writer.double(value.timeIntervalSince1970)
        case .bytes(let value): writer.string(value.base64EncodedString())
        case .asset(let value): try value.write(to: &writer)
        case .reference(let value): try value.write(to: &writer)
        case .list(let values): try writer.array(values)
        }
        writer.raw("}")
    }
}

extension Field: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        var first = true
        writer.raw("{")
        writer.key("stamp", first: &first)
        try stamp.write(to: &writer)
        writer.key("value", first: &first)
        if let value { try value.write(to: &writer) } else { writer.raw("null") }
        writer.raw("}")
    }
}

extension Record: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        var first = true
        writer.raw("{")
        if let changeTag {
            writer.key("changeTag", first: &first)
            writer.string(changeTag)
        }
        if let created {
            writer.key("created", first: &first)
            try created.write(to: &writer)
        }
        writer.key("fields", first: &first)
        try writer.object(fields)
        if let modified {
            writer.key("modified", first: &first)
            try modified.write(to: &writer)
        }
        writer.key("recordName", first: &first)
        writer.string(recordName)
        writer.key("recordType", first: &first)
        writer.string(recordType)
        writer.raw("}")
    }
}

extension RecordDeletion: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        var first = true
        writer.raw("{")
        writer.key("recordName", first: &first)
        writer.string(recordName)
        writer.key("stamp", first: &first)
        try stamp.write(to: &writer)
        writer.raw("}")
    }
}

extension DeletedRecord: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        var first = true
        writer.raw("{")
        writer.key("recordName", first: &first)
        writer.string(recordName)
        writer.key("stamp", first: &first)
        try stamp.write(to: &writer)
        writer.raw("}")
    }
}

extension RecordResult: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        var first = true
        writer.raw("{")
        if let error {
            writer.key("error", first: &first)
            try writer.encodable(error)
        }
        if let record {
            writer.key("record", first: &first)
            try record.write(to: &writer)
        }
        writer.key("recordName", first: &first)
        writer.string(recordName)
        writer.key("status", first: &first)
        writer.string(status.rawValue)
        writer.raw("}")
    }
}

extension ModifyRecordsRequest: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        var first = true
        writer.raw("{")
        writer.key("atomic", first: &first)
        writer.bool(atomic)
        writer.key("deletions", first: &first)
        try writer.array(deletions)
        writer.key("savePolicy", first: &first)
        writer.string(savePolicy.rawValue)
        writer.key("saves", first: &first)
        try writer.array(saves)
        writer.raw("}")
    }
}

extension ModifyRecordsResponse: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        var first = true
        writer.raw("{")
        writer.key("changeToken", first: &first)
        writer.string(changeToken.rawValue)
        if let error {
            writer.key("error", first: &first)
            try writer.encodable(error)
        }
        writer.key("results", first: &first)
        try writer.array(results)
        writer.raw("}")
    }
}

extension FetchZoneChangesResponse: WireJSONWritable {
    package func write(to writer: inout WireJSONWriter) throws {
        var first = true
        writer.raw("{")
        writer.key("changeToken", first: &first)
        writer.string(changeToken.rawValue)
        writer.key("deletions", first: &first)
        try writer.array(deletions)
        writer.key("moreComing", first: &first)
        writer.bool(moreComing)
        writer.key("records", first: &first)
        try writer.array(records)
        writer.raw("}")
    }
}
