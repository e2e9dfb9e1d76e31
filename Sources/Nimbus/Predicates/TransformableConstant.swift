import Foundation

/// How a constant compares with a transformable attribute in a fetch: transformable
/// values are stored encoded (as JSON by the `Codable` type registered with
/// ``ValueTransformers``), so the constant is encoded the same way and the bytes compared,
/// as Core Data compares the archived forms. `Data` constants compare as they are.
enum TransformableConstant {
    /// The stored form of a constant, or nil for values that have none (object IDs).
    static func storedForm(of value: PropertyValue) -> Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = []
        switch value {
        case let .data(v): return v
        case let .string(v): return try? encoder.encode(v)
        case let .integer(v): return try? encoder.encode(v)
        case let .double(v): return try? encoder.encode(v)
        case let .decimal(v): return try? encoder.encode(v)
        case let .bool(v): return try? encoder.encode(v)
        case let .date(v): return try? encoder.encode(v)
        case let .uuid(v): return try? encoder.encode(v)
        case let .url(v): return try? encoder.encode(v)
        case .null, .object, .objects: return nil
        }
    }
}
