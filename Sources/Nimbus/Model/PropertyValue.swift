import Foundation

/// A property value as Nimbus holds it: in snapshots, in change sets, in predicates.
///
/// Attribute values convert to and from the Swift types users work with (`Int`, `String`,
/// `Date`, …) through `init(_:for:)` and `anyValue(for:)`. Relationship values hold
/// object IDs. For example:
///
/// ```swift
/// let value = try PropertyValue(42, for: .integer64)   // .integer(42)
/// ```
public enum PropertyValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case bool(Bool)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case url(URL)
    /// A to-one relationship's destination.
    case object(ManagedObjectID)
    /// A to-many relationship's destinations. Ordered relationships keep their order.
    case objects([ManagedObjectID])

    /// Whether this is ``null``.
    public var isNull: Bool { if case .null = self { true } else { false } }
}

extension PropertyValue {
    /// The value as the attribute type's own representation when its type is exactly that
    /// type's Swift type (`String` for strings, `Int64` for 64-bit integers, …); nil otherwise.
    @inline(__always)
    private static func exactMatch<Value>(_ value: Value, for type: AttributeType) -> PropertyValue? {
        switch type {
        case .string where Value.self == String.self: .string(unsafeBitCast(value, to: String.self))
        case .integer64 where Value.self == Int64.self: .integer(unsafeBitCast(value, to: Int64.self))
        case .double where Value.self == Double.self: .double(unsafeBitCast(value, to: Double.self))
        case .boolean where Value.self == Bool.self: .bool(unsafeBitCast(value, to: Bool.self))
        case .date where Value.self == Date.self: .date(unsafeBitCast(value, to: Date.self))
        default: nil
        }
    }

    /// Converts a Swift value to the representation of an attribute type.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/typeMismatch`` when the value cannot
    ///   represent the type (a string for an integer, an out-of-range integer, …).
    public init(_ value: Any?, for type: AttributeType, transformerName: String? = nil) throws {
        guard let value else { self = .null; return }
        // The common case first: a value of the attribute's own Swift type, recognized by its
        // type alone (the existential is opened; no dynamic cast).
        if let exact = Self.exactMatch(value, for: type) { self = exact; return }
        guard !(value is NSNull) else { self = .null; return }
        if let already = value as? PropertyValue { self = already; return }
        /// A value no case below takes: an optional boxed in `Any` (`["subtitle": subtitle]`
        /// with `subtitle: String?`) converts as what it wraps, nil as nil; an enum stored as
        /// its raw value as that raw value. Asked only here, so values of ordinary types pay
        /// no conformance check.
        func otherwise() throws -> PropertyValue {
            if let optional = value as? any OptionalValue {
                return try PropertyValue(optional.wrappedValue, for: type, transformerName: transformerName)
            }
            if let enumValue = value as? any ManagedRawRepresentable {
                return try PropertyValue(enumValue.managedRawValue, for: type, transformerName: transformerName)
            }
            throw NimbusError(.typeMismatch, "\(Swift.type(of: value)) value \(String(describing: value)) is not a valid \(type.rawValue)")
        }
        switch type {
        case .integer16, .integer32, .integer64:
            guard let int = PropertyValue.int64(from: value) else { self = try otherwise(); return }
            guard type.integerRange!.contains(int) else {
                throw NimbusError(.typeMismatch, "\(int) is out of range for \(type.rawValue)")
            }
            self = .integer(int)
        case .double, .float:
            guard let double = PropertyValue.double(from: value) else { self = try otherwise(); return }
            self = .double(type == .float ? Double(Float(double)) : double)
        case .decimal:
            switch value {
            case let decimal as Decimal: self = .decimal(decimal)
            default:
                if let int = PropertyValue.int64(from: value) { self = .decimal(Decimal(int)) }
                else if let double = PropertyValue.double(from: value) { self = .decimal(Decimal(double)) }
                else { self = try otherwise(); return }
            }
        case .string:
            guard let string = value as? String else {
                if let substring = value as? Substring { self = .string(String(substring)); return }
                self = try otherwise(); return
            }
            self = .string(string)
        case .boolean:
            if let bool = value as? Bool { self = .bool(bool) }
            else if let int = PropertyValue.int64(from: value), int == 0 || int == 1 { self = .bool(int == 1) }
            else { self = try otherwise(); return }
        case .date:
            guard let date = value as? Date else { self = try otherwise(); return }
            self = .date(date)
        case .binaryData:
            guard let data = value as? Data else {
                if let bytes = value as? [UInt8] { self = .data(Data(bytes)); return }
                self = try otherwise(); return
            }
            self = .data(data)
        case .uuid:
            guard let uuid = value as? UUID else { self = try otherwise(); return }
            self = .uuid(uuid)
        case .uri:
            guard let url = value as? URL else { self = try otherwise(); return }
            self = .url(url)
        case .transformable:
            if let optional = value as? any OptionalValue {
                self = try PropertyValue(optional.wrappedValue, for: type, transformerName: transformerName)
                return
            }
            if let data = value as? Data, transformerName == nil { self = .data(data); return }
            self = .data(try ValueTransformers.encode(value, transformerName: transformerName))
        }
    }

    /// The Swift value for an attribute type: `Int16`/`Int32`/`Int64`, `Double`, `Float`,
    /// `Decimal`, `String`, `Bool`, `Date`, `Data`, `UUID`, `URL`, or the decoded value of
    /// a transformable attribute. `nil` for ``null``.
    public func anyValue(for type: AttributeType, transformerName: String? = nil) -> Any? {
        // The common cases first: values stored as the attribute type's own Swift type.
        switch self {
        case let .string(string): return string
        case let .date(date): return date
        case let .double(double) where type == .double: return double
        case let .integer(integer) where type == .integer64: return integer
        case let .bool(bool): return bool
        default: break
        }
        switch (self, type) {
        case (.null, _): return nil
        case let (.integer(v), .integer16): return Int16(truncatingIfNeeded: v)
        case let (.integer(v), .integer32): return Int32(truncatingIfNeeded: v)
        case let (.integer(v), .integer64): return v
        case let (.double(v), .float): return Float(v)
        case let (.integer(v), .float): return Float(v)
        case let (.integer(v), .double): return Double(v)
        case let (.integer(v), .boolean): return v != 0
        case let (.data(data), .transformable):
            return (try? ValueTransformers.decode(data, transformerName: transformerName)) ?? data
        default: return anyValue
        }
    }

    /// The payload without regard to a declared type.
    public var anyValue: Any? {
        switch self {
        case .null: nil
        case let .integer(v): v
        case let .double(v): v
        case let .decimal(v): v
        case let .string(v): v
        case let .bool(v): v
        case let .date(v): v
        case let .data(v): v
        case let .uuid(v): v
        case let .url(v): v
        case let .object(v): v
        case let .objects(v): v
        }
    }

    static func int64(from value: Any) -> Int64? {
        switch value {
        case let v as Int: Int64(v)
        case let v as Int64: v
        case let v as Int32: Int64(v)
        case let v as Int16: Int64(v)
        case let v as Int8: Int64(v)
        case let v as UInt8: Int64(v)
        case let v as UInt16: Int64(v)
        case let v as UInt32: Int64(v)
        case let v as UInt: Int64(exactly: v)
        case let v as UInt64: Int64(exactly: v)
        case let v as Double: v.rounded() == v ? Int64(exactly: v) : nil
        case let v as Float: v.rounded() == v ? Int64(exactly: v) : nil
        case let v as Decimal: Int64(exactly: NSDecimalNumber(decimal: v).doubleValue)
        default: nil
        }
    }

    static func double(from value: Any) -> Double? {
        switch value {
        case let v as Double: v
        case let v as Float: Double(v)
        case let v as Decimal: NSDecimalNumber(decimal: v).doubleValue
        default: int64(from: value).map(Double.init)
        }
    }
}
