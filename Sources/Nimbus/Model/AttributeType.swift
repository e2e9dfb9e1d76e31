/// The type of an attribute's values, as Core Data names them.
///
/// For example:
///
/// ```swift
/// Attribute("title", .string)
/// Attribute("views", .integer64, defaultValue: 0)
/// ```
public enum AttributeType: String, Sendable, Codable, CaseIterable {
    case integer16
    case integer32
    case integer64
    case double
    case float
    case decimal
    case string
    case boolean
    case date
    case binaryData
    case uuid
    case uri
    /// A value stored as encoded data: a `Codable` type registered with
    /// ``ValueTransformers`` under the attribute's `valueTransformerName`.
    case transformable

    /// Whether values of this type are numbers (comparable with each other).
    public var isNumeric: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .double, .float, .decimal, .boolean: true
        default: false
        }
    }

    /// Whether values of this type are integers.
    public var isInteger: Bool {
        switch self {
        case .integer16, .integer32, .integer64: true
        default: false
        }
    }

    /// The range an integer type can hold.
    var integerRange: ClosedRange<Int64>? {
        switch self {
        case .integer16: Int64(Int16.min)...Int64(Int16.max)
        case .integer32: Int64(Int32.min)...Int64(Int32.max)
        case .integer64: Int64.min...Int64.max
        default: nil
        }
    }

    /// The SQLite column type Core Data declares for this attribute type.
    var sqlColumnType: String {
        switch self {
        case .integer16, .integer32, .integer64, .boolean: "INTEGER"
        case .double, .float: "FLOAT"
        case .decimal: "DECIMAL"
        case .date: "TIMESTAMP"
        case .string, .uri: "VARCHAR"
        case .binaryData, .uuid, .transformable: "BLOB"
        }
    }
}
