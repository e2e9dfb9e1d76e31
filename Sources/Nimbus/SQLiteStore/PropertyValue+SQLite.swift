import Foundation
import GRDB

/// Conversions between property values and SQLite values, in Core Data's conventions:
/// dates as seconds since 2001-01-01 (REAL), booleans 0/1, UUIDs as 16-byte BLOBs,
/// URIs as text, decimals as numbers.
extension PropertyValue {
    /// The value to bind in SQL. Object IDs bind their primary key.
    package var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case let .integer(v): v.databaseValue
        case let .double(v): v.databaseValue
        case let .decimal(v): (Double(v.description) ?? NSDecimalNumber(decimal: v).doubleValue).databaseValue
        case let .string(v): v.databaseValue
        case let .bool(v): (v ? 1 : 0 as Int64).databaseValue
        case let .date(v): v.timeIntervalSinceReferenceDate.databaseValue
        case let .data(v): v.databaseValue
        case let .uuid(v): withUnsafeBytes(of: v.uuid) { Data($0) }.databaseValue
        case let .url(v): v.absoluteString.databaseValue
        case let .object(id): id.primaryKey.databaseValue
        case .objects: .null
        }
    }

    /// The value to bind, as a plain Swift value (cheaper to bind than a `DatabaseValue`).
    @inline(__always)
    package var binding: (any DatabaseValueConvertible)? {
        switch self {
        case .null, .objects: nil
        case let .integer(v): v
        case let .double(v): v
        case let .string(v): v
        case let .bool(v): v ? 1 as Int64 : 0 as Int64
        case let .date(v): v.timeIntervalSinceReferenceDate
        case let .data(v): v
        case let .object(id): id.primaryKey
        default: databaseValue
        }
    }

    /// Reads a stored value as an attribute type.
    package init(databaseValue value: DatabaseValue, type: AttributeType) {
        switch (value.storage, type) {
        case (.null, _): self = .null
        case let (.int64(v), .integer16), let (.int64(v), .integer32), let (.int64(v), .integer64): self = .integer(v)
        // A REAL in an integer column: a whole number in range is the integer; anything else
        // (a fraction, 1e30, NaN) is kept as the REAL SQLite holds rather than trapping.
        case let (.double(v), .integer16), let (.double(v), .integer32), let (.double(v), .integer64):
            self = Int64(exactly: v).map(PropertyValue.integer) ?? .double(v)
        case let (.int64(v), .double), let (.int64(v), .float): self = .double(Double(v))
        case let (.double(v), .double): self = .double(v)
        case let (.double(v), .float): self = .double(Double(Float(v)))
        case let (.int64(v), .decimal): self = .decimal(Decimal(v))
        case let (.double(v), .decimal): self = .decimal(Decimal(string: String(v)) ?? Decimal(v))
        case let (.string(v), .decimal): self = .decimal(Decimal(string: v) ?? 0)
        case let (.int64(v), .boolean): self = .bool(v != 0)
        case let (.double(v), .date): self = .date(Date(timeIntervalSinceReferenceDate: v))
        case let (.int64(v), .date): self = .date(Date(timeIntervalSinceReferenceDate: Double(v)))
        case let (.string(v), .string): self = .string(v)
        case let (.string(v), .uri): self = URL(string: v).map(PropertyValue.url) ?? .string(v)
        case let (.blob(v), .uuid) where v.count == 16:
            self = .uuid(v.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) })
        case let (.string(v), .uuid): self = UUID(uuidString: v).map(PropertyValue.uuid) ?? .string(v)
        case let (.blob(v), .binaryData), let (.blob(v), .transformable): self = .data(v)
        // Anything else: keep what SQLite holds, in the closest shape.
        case let (.int64(v), _): self = .integer(v)
        case let (.double(v), _): self = .double(v)
        case let (.string(v), _): self = .string(v)
        case let (.blob(v), _): self = .data(v)
        }
    }
}
