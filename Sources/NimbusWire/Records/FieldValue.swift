import Foundation

/// A typed value of a record field.
///
/// On the wire a value is an object with a `type` and a `value`:
/// `{"type":"string","value":"Hello"}`, `{"type":"int64","value":42}`,
/// `{"type":"date","value":1700000000.25}` (seconds since 1970),
/// `{"type":"bytes","value":"AAEC"}` (base64), `{"type":"list","value":[…]}`.
///
/// For example:
/// ```swift
/// let tags: FieldValue = .list([.string("swift"), .string("sync")])
/// ```
public enum FieldValue: Hashable, Sendable {
    /// A UTF-8 string.
    case string(String)
    /// A 64-bit signed integer.
    case int64(Int64)
    /// A double-precision number.
    case double(Double)
    /// A boolean.
    case bool(Bool)
    /// A point in time.
    case date(Date)
    /// Raw bytes (kept small; large values belong in assets).
    case bytes(Data)
    /// A reference to an uploaded asset.
    case asset(AssetReference)
    /// A reference to another record.
    case reference(RecordReference)
    /// An ordered list of values.
    case list([FieldValue])

    /// The name of the case as it appears in the `type` key on the wire.
    public var typeName: String {
        switch self {
        case .string: "string"
        case .int64: "int64"
        case .double: "double"
        case .bool: "bool"
        case .date: "date"
        case .bytes: "bytes"
        case .asset: "asset"
        case .reference: "reference"
        case .list: "list"
        }
    }

    /// The asset references held by this value, including those inside lists.
    public var assetReferences: [AssetReference] {
        switch self {
        case .asset(let asset): [asset]
        case .list(let values): values.flatMap(\.assetReferences)
        default: []
        }
    }
}
