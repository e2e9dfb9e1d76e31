import Foundation

/// A `Codable` value that a `@Managed` class keeps in a transformable attribute, with a typed
/// accessor: what Core Data's transformable attributes with a custom class are for.
///
/// Conform the type, then declare the property with it. Arrays, sets and dictionaries of
/// `Codable` values conform already; `@Managed` makes a collection of value types
/// (`[String]`, `Set<UUID>`, `[String: Int]`) a transformable attribute without being told,
/// and any other collection of `Codable` values when it is marked `@Attribute(.transformable)`
/// (without it, a collection of objects is a to-many relationship). For example:
///
/// ```swift
/// struct Palette: ManagedTransformable { var colors: [String] }
///
/// @Managed final class Sketch: ManagedObject {
///     var palette: Palette?
///     var tags: [String] = []
///     @Attribute(.transformable) var strokes: [Stroke]?   // Stroke: Codable
/// }
///
/// sketch.palette = Palette(colors: ["teal"])
/// let request = Sketch.fetchRequest()
/// ```
///
/// The value is stored as JSON with sorted keys (the format ``ValueTransformers`` uses, so
/// `value(forKey:)` decodes it too, and an equal value writes equal bytes: setting it again
/// changes nothing). The attribute's transformer name is ``managedTransformerName``, and the
/// type is registered under it when a model is built from the class. Each read decodes the
/// stored JSON: keep a value you read many times in a local.
///
/// A stored value that no longer decodes as the type (a changed `Codable` layout) reads as
/// nil through an optional property, and as the declared default value through a required
/// one; `value(forKey:)` still returns its bytes, and they are kept until the property is
/// set. A required property with neither stops the process instead of inventing a value:
/// declare transformables optional unless every object has one (a default value in the
/// declaration gives new objects one).
public protocol ManagedTransformable: ManagedAttributeValue, Codable {
    /// The transformer name the attribute records; by default the module-qualified type name.
    static var managedTransformerName: String { get }
}

extension ManagedTransformable {
    public static var managedTransformerName: String { String(reflecting: Self.self) }

    public static var managedAttributeType: AttributeType { .transformable }

    /// A required transformable attribute has no value to read while it is nil.
    public static var managedNilValue: Self {
        preconditionFailure("""
            a required \(Self.self) attribute read nil (never set, or its JSON no longer decodes as \(Self.self)): \
            declare it optional, or give it a default value
            """)
    }

    public init?(managedValue: PropertyValue) {
        guard case let .data(data) = managedValue,
              let value = try? ValueTransformers.decoder.decode(Self.self, from: data) else { return nil }
        self = value
    }

    public var managedValue: PropertyValue {
        do {
            return .data(try ValueTransformers.encoder.encode(self))
        } catch {
            // Only a custom `encode(to:)` that throws gets here: storing nothing instead
            // would lose the edit silently.
            preconditionFailure("\(Self.self) could not be encoded for its transformable attribute: \(error)")
        }
    }

    /// Registers the type under its transformer name, so `value(forKey:)` decodes it.
    static func registerTransformer() {
        ValueTransformers.registerCodable(Self.self, as: managedTransformerName)
    }
}

extension Array: ManagedAttributeValue, ManagedTransformable where Element: Codable {}
extension Set: ManagedAttributeValue, ManagedTransformable where Element: Codable {}
extension Dictionary: ManagedAttributeValue, ManagedTransformable where Key: Codable, Value: Codable {}
