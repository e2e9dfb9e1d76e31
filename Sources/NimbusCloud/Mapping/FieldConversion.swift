import Foundation
import Nimbus
import NimbusWire

/// Attribute values ↔ record field values.
///
/// Numbers, strings, booleans and dates travel as themselves; decimals, UUIDs and URLs as
/// strings (exact, portable); binary and transformable values as bytes, or as an asset when
/// large (see ``RecordBuilder``).
enum FieldConversion {
    static func fieldValue(_ value: PropertyValue) -> FieldValue? {
        switch value {
        case .null, .object, .objects: nil
        case let .integer(v): .int64(v)
        case let .double(v): .double(v)
        case let .decimal(v): .string(v.description)
        case let .string(v): .string(v)
        case let .bool(v): .bool(v)
        case let .date(v): .date(v)
        case let .data(v): .bytes(v)
        case let .uuid(v): .string(v.uuidString)
        case let .url(v): .string(v.absoluteString)
        }
    }

    /// The attribute value a field holds, converted to the attribute's type; a value of
    /// another type (a record written by another app version) is an error naming the field.
    static func propertyValue(_ field: FieldValue?, for attribute: AttributeDescription) throws -> PropertyValue {
        guard let field else { return .null }
        func mismatch() -> CloudError {
            CloudError(.server, "field CD_\(attribute.name) holds a \(field.typeName), which can't be a \(attribute.type.rawValue) value")
        }
        switch (attribute.type, field) {
        case (.integer16, .int64(let v)), (.integer32, .int64(let v)), (.integer64, .int64(let v)):
            guard attribute.type.integerBounds.contains(v) else { throw mismatch() }
            return .integer(v)
        case (.integer16, .double(let v)), (.integer32, .double(let v)), (.integer64, .double(let v)):
            guard let int = Int64(exactly: v), attribute.type.integerBounds.contains(int) else { throw mismatch() }
            return .integer(int)
        case (.double, .double(let v)), (.float, .double(let v)): return .double(v)
        case (.double, .int64(let v)), (.float, .int64(let v)): return .double(Double(v))
        case (.decimal, .string(let v)):
            guard let decimal = Decimal(string: v, locale: Locale(identifier: "en_US_POSIX")) else { throw mismatch() }
            return .decimal(decimal)
        case (.decimal, .int64(let v)): return .decimal(Decimal(v))
        case (.decimal, .double(let v)): return .decimal(Decimal(v))
        case (.string, .string(let v)): return .string(v)
        case (.boolean, .bool(let v)): return .bool(v)
        case (.boolean, .int64(let v)): return .bool(v != 0)
        case (.date, .date(let v)): return .date(v)
        case (.binaryData, .bytes(let v)), (.transformable, .bytes(let v)): return .data(v)
        case (.uuid, .string(let v)):
            guard let uuid = UUID(uuidString: v) else { throw mismatch() }
            return .uuid(uuid)
        case (.uri, .string(let v)):
            guard let url = URL(string: v) else { throw mismatch() }
            return .url(url)
        default: throw mismatch()
        }
    }

    /// The bytes of a value that may move to an asset (strings as UTF-8, binary as is).
    static func assetBytes(_ value: PropertyValue) -> Data? {
        switch value {
        case let .string(v): Data(v.utf8)
        case let .data(v): v
        default: nil
        }
    }

    /// The attribute value an asset's bytes stand for.
    static func propertyValue(assetBytes data: Data, for attribute: AttributeDescription) throws -> PropertyValue {
        switch attribute.type {
        case .string: .string(String(decoding: data, as: UTF8.self))
        case .binaryData, .transformable: .data(data)
        default: throw CloudError(.server, "field CD_\(attribute.name)_ckAsset holds an asset, which can't be a \(attribute.type.rawValue) value")
        }
    }
}

extension AttributeType {
    var integerBounds: ClosedRange<Int64> {
        switch self {
        case .integer16: Int64(Int16.min)...Int64(Int16.max)
        case .integer32: Int64(Int32.min)...Int64(Int32.max)
        default: Int64.min...Int64.max
        }
    }
}
