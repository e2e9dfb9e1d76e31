import Foundation

/// Conversions from the Swift values passed to `%@` and substitution variables, and
/// `CAST`, into predicate constants.
enum PredicateConstants {
    /// A constant or an array of constants for a Swift value.
    static func expression(from value: Any?) throws -> QueryExpression {
        guard let value, !(value is NSNull) else { return .constant(.null) }
        if let expression = value as? QueryExpression { return expression }
        if let array = value as? [Any?] { return .aggregate(try array.map(expression(from:))) }
        if let array = value as? [Any] { return .aggregate(try array.map(expression(from:))) }
        if let set = value as? Set<ManagedObject> { return .aggregate(set.sorted { $0.objectID < $1.objectID }.map { .constant(.object($0.objectID)) }) }
        if let set = value as? Set<ManagedObjectID> { return .aggregate(set.sorted().map { .constant(.object($0)) }) }
        if let set = value as? Set<String> { return .aggregate(set.sorted().map { .constant(.string($0)) }) }
        if let set = value as? Set<Int> { return .aggregate(set.sorted().map { .constant(.integer(Int64($0))) }) }
        if let set = value as? Set<UUID> { return .aggregate(set.sorted { $0.uuidString < $1.uuidString }.map { .constant(.uuid($0)) }) }
        return .constant(try constant(from: value))
    }

    /// The constant for one Swift value.
    static func constant(from value: Any) throws -> PropertyValue {
        switch value {
        case let v as PropertyValue: return v
        case let v as Bool: return .bool(v)
        case let v as String: return .string(v)
        case let v as Substring: return .string(String(v))
        case let v as Date: return .date(v)
        case let v as Data: return .data(v)
        case let v as UUID: return .uuid(v)
        case let v as URL: return .url(v)
        case let v as Decimal: return .decimal(v)
        case let v as Double: return .double(v)
        case let v as Float: return .double(Double(v))
        case let v as ManagedObject: return .object(v.objectID)
        case let v as ManagedObjectID: return .object(v)
        case let v as any ManagedRawRepresentable: return v.managedValue
        // An enum of SwiftData-style code (no ManagedRawRepresentable) is stored as its raw value too.
        case let v as any RawRepresentable: return try constant(from: v.rawValue)
        default:
            if let int = PropertyValue.int64(from: value) { return .integer(int) }
            throw NimbusError(.typeMismatch, "a \(type(of: value)) cannot be used in a predicate; pass a number, string, date, data, UUID, URL, object, object ID or an array of them")
        }
    }

    /// `CAST(constant, 'Class')`, or nil when the conversion makes no sense.
    static func cast(_ value: PropertyValue, to type: String) -> PropertyValue? {
        switch (type, value) {
        case ("NSDate", .date): return value
        case let ("NSDate", .integer(v)): return .date(Date(timeIntervalSinceReferenceDate: Double(v)))
        case let ("NSDate", .double(v)): return .date(Date(timeIntervalSinceReferenceDate: v))
        case let ("NSDate", .string(s)):
            if let seconds = Double(s) { return .date(Date(timeIntervalSinceReferenceDate: seconds)) }
            let formatter = ISO8601DateFormatter()
            if let date = formatter.date(from: s) { return .date(date) }
            formatter.formatOptions.insert(.withFractionalSeconds)
            return formatter.date(from: s).map(PropertyValue.date)
        case ("NSNumber", .integer), ("NSNumber", .double), ("NSNumber", .decimal): return value
        case let ("NSNumber", .bool(v)): return .integer(v ? 1 : 0)
        case let ("NSNumber", .date(d)): return .double(d.timeIntervalSinceReferenceDate)
        case let ("NSNumber", .string(s)):
            if let v = Int64(s) { return .integer(v) }
            // "inf", "-inf" and "nan" too: what the formatter writes for them.
            return Double(s).map(PropertyValue.double)
        case let ("NSDecimalNumber", .string(s)): return Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")).map(PropertyValue.decimal)
        case let ("NSDecimalNumber", .integer(v)): return .decimal(Decimal(v))
        case let ("NSDecimalNumber", .double(v)): return .decimal(Decimal(v))
        case ("NSDecimalNumber", .decimal): return value
        case ("NSString", .string): return value
        case let ("NSString", .integer(v)): return .string(String(v))
        case let ("NSString", .double(v)): return .string(String(v))
        case let ("NSUUID", .string(s)): return UUID(uuidString: s).map(PropertyValue.uuid)
        case let ("NSURL", .string(s)): return URL(string: s).map(PropertyValue.url)
        case let ("NSData", .string(s)): return Data(base64Encoded: s).map(PropertyValue.data)
        default: return nil
        }
    }
}
