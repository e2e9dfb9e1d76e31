import Foundation

/// A Swift type that an attribute of a `@Managed` class can have: it names its
/// ``AttributeType`` and converts to and from the stored ``PropertyValue`` without boxing.
///
/// `String`, `Int`, `Int16`, `Int32`, `Int64`, `Double`, `Float`, `Bool`, `Decimal`, `Date`,
/// `Data`, `UUID` and `URL` conform. For example:
///
/// ```swift
/// @Managed final class Post: ManagedObject {
///     var title: String?        // .string, optional
///     var views: Int64 = 0      // .integer64, required, default 0
/// }
/// ```
public protocol ManagedAttributeValue {
    /// The attribute type the entity description declares for this Swift type.
    static var managedAttributeType: AttributeType { get }
    /// The value a non-optional property reads while the stored value is nil (Core Data's
    /// scalar accessors read 0 for nil the same way).
    static var managedNilValue: Self { get }
    /// The Swift value of a stored value, or nil for ``PropertyValue/null`` (and for a value
    /// of another type).
    init?(managedValue: PropertyValue)
    /// The stored value.
    var managedValue: PropertyValue { get }
}

extension String: ManagedAttributeValue {
    public static var managedAttributeType: AttributeType { .string }
    public static var managedNilValue: String { "" }
    @inlinable public init?(managedValue: PropertyValue) {
        guard case let .string(value) = managedValue else { return nil }
        self = value
    }
    @inlinable public var managedValue: PropertyValue { .string(self) }
}

extension Int64: ManagedAttributeValue {
    public static var managedAttributeType: AttributeType { .integer64 }
    public static var managedNilValue: Int64 { 0 }
    @inlinable public init?(managedValue: PropertyValue) {
        switch managedValue {
        case let .integer(value): self = value
        case let .bool(value): self = value ? 1 : 0
        default: return nil
        }
    }
    @inlinable public var managedValue: PropertyValue { .integer(self) }
}

extension Int: ManagedAttributeValue {
    public static var managedAttributeType: AttributeType { .integer64 }
    public static var managedNilValue: Int { 0 }
    @inlinable public init?(managedValue: PropertyValue) {
        guard let value = Int64(managedValue: managedValue) else { return nil }
        self = Int(truncatingIfNeeded: value)
    }
    @inlinable public var managedValue: PropertyValue { .integer(Int64(self)) }
}

extension Int32: ManagedAttributeValue {
    public static var managedAttributeType: AttributeType { .integer32 }
    public static var managedNilValue: Int32 { 0 }
    @inlinable public init?(managedValue: PropertyValue) {
        guard let value = Int64(managedValue: managedValue) else { return nil }
        self = Int32(truncatingIfNeeded: value)
    }
    @inlinable public var managedValue: PropertyValue { .integer(Int64(self)) }
}

extension Int16: ManagedAttributeValue {
    public static var managedAttributeType: AttributeType { .integer16 }
    public static var managedNilValue: Int16 { 0 }
    @inlinable public init?(managedValue: PropertyValue) {
        guard let value = Int64(managedValue: managedValue) else { return nil }
        self = Int16(truncatingIfNeeded: value)
    }
    @inlinable public var managedValue: PropertyValue { .integer(Int64(self)) }
}

extension Double: ManagedAttributeValue {
    public static var managedAttributeType: AttributeType { .double }
    public static var managedNilValue: Double { 0 }
    @inlinable public init?(managedValue: PropertyValue) {
        switch managedValue {
        case let .double(value): self = value
        case let .integer(value): self = Double(value)
        default: return nil
        }
    }
    @inlinable public var managedValue: PropertyValue { .double(self) }
}

extension Float: ManagedAttributeValue {
    public static var managedAttributeType: AttributeType { .float }
    public static var managedNilValue: Float { 0 }
    @inlinable public init?(managedValue: PropertyValue) {
        guard let value = Double(managedValue: managedValue) else { return nil }
        self = Float(value)
    }
    @inlinable public var managedValue: PropertyValue { .double(Double(self)) }
}

extension Bool: ManagedAttributeValue {
    public static var managedAttributeType: AttributeType { .boolean }
    public static var managedNilValue: Bool { false }
    @inlinable public init?(managedValue: PropertyValue) {
        switch managedValue {
        case let .bool(value): self = value
        case let .integer(value): self = value != 0
        default: return nil
        }
    }
    @inlinable public var managedValue: PropertyValue { .bool(self) }
}

extension Decimal: ManagedAttributeValue {
    public static var managedAttributeType: AttributeType { .decimal }
    public static var managedNilValue: Decimal { 0 }
    @inlinable public init?(managedValue: PropertyValue) {
        switch managedValue {
        case let .decimal(value): self = value
        case let .integer(value): self = Decimal(value)
        case let .double(value): self = Decimal(value)
        default: return nil
        }
    }
    @inlinable public var managedValue: PropertyValue { .decimal(self) }
}

extension Date: ManagedAttributeValue {
    public static var managedAttributeType: AttributeType { .date }
    /// 2001-01-01 00:00:00 UTC, Core Data's zero date.
    public static var managedNilValue: Date { Date(timeIntervalSinceReferenceDate: 0) }
    @inlinable public init?(managedValue: PropertyValue) {
        guard case let .date(value) = managedValue else { return nil }
        self = value
    }
    @inlinable public var managedValue: PropertyValue { .date(self) }
}

extension Data: ManagedAttributeValue {
    public static var managedAttributeType: AttributeType { .binaryData }
    public static var managedNilValue: Data { Data() }
    @inlinable public init?(managedValue: PropertyValue) {
        guard case let .data(value) = managedValue else { return nil }
        self = value
    }
    @inlinable public var managedValue: PropertyValue { .data(self) }
}

extension UUID: ManagedAttributeValue {
    public static var managedAttributeType: AttributeType { .uuid }
    /// The all-zero UUID.
    public static var managedNilValue: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    @inlinable public init?(managedValue: PropertyValue) {
        guard case let .uuid(value) = managedValue else { return nil }
        self = value
    }
    @inlinable public var managedValue: PropertyValue { .uuid(self) }
}

extension URL: ManagedAttributeValue {
    public static var managedAttributeType: AttributeType { .uri }
    /// `about:blank`.
    public static var managedNilValue: URL { URL(string: "about:blank")! }
    @inlinable public init?(managedValue: PropertyValue) {
        guard case let .url(value) = managedValue else { return nil }
        self = value
    }
    @inlinable public var managedValue: PropertyValue { .url(self) }
}
