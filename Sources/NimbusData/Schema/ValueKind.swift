import Nimbus

/// How a property's Swift type is stored (decision 0100).
enum ValueKind {
    /// A built-in attribute type (`String`, `Int`, `Date`, `Data`, `UUID`, `URL`, …).
    case builtin(AttributeType, any ManagedAttributeValue.Type)
    /// An enum (any `RawRepresentable`) stored as its raw value.
    case raw(any RawRepresentable.Type, AttributeType, any ManagedAttributeValue.Type)
    /// A `Codable` value (a struct, an enum with associated values, an array of values)
    /// stored as one transformable attribute of its JSON, under a transformer name.
    case codable(String)
    /// A to-one relationship to another model.
    case toOne(any PersistentModel.Type)
    /// A to-many relationship (`[Model]`).
    case toMany(any PersistentModel.Type, any _ModelArray.Type)

    /// What a Swift type (optional already unwrapped) is stored as, or nil when it is none
    /// of the above.
    static func classify(_ type: Any.Type) -> ValueKind? {
        if let model = type as? any PersistentModel.Type { return .toOne(model) }
        if let array = type as? any _ModelArray.Type { return .toMany(array._elementModelType, array) }
        if let transformable = type as? any ManagedTransformable.Type {
            let name = transformable.managedTransformerName
            registerCodable(transformable, name)
            return .codable(name)
        }
        if let value = type as? any ManagedAttributeValue.Type { return .builtin(value.managedAttributeType, value) }
        if let raw = type as? any RawRepresentable.Type, let rawType = rawValueType(raw) as? any ManagedAttributeValue.Type,
           rawType.managedAttributeType != .transformable {
            return .raw(raw, rawType.managedAttributeType, rawType)
        }
        if let codable = type as? any Codable.Type {
            let name = String(reflecting: codable)
            registerCodable(codable, name)
            return .codable(name)
        }
        return nil
    }

    var attributeType: AttributeType? {
        switch self {
        case let .builtin(type, _), let .raw(_, type, _): type
        case .codable: .transformable
        case .toOne, .toMany: nil
        }
    }

    var transformerName: String? {
        if case let .codable(name) = self { return name }
        return nil
    }
}

private func rawValueType<R: RawRepresentable>(_ type: R.Type) -> Any.Type { R.RawValue.self }

private func registerCodable<T: Codable>(_ type: T.Type, _ name: String) {
    ValueTransformers.registerCodable(type, as: name)
}

/// `Optional` seen from code that holds a type or a value as `Any`.
protocol _OptionalType {
    static var _wrappedType: Any.Type { get }
    static var _none: Self { get }
    var _wrapped: Any? { get }
}

extension Optional: _OptionalType {
    static var _wrappedType: Any.Type { Wrapped.self }
    static var _none: Self { .none }
    var _wrapped: Any? {
        switch self {
        case let .some(value): value
        case .none: nil
        }
    }
}

/// Unwraps an `Optional` held as `Any` (nil for `.none`).
func unwrapped(_ value: Any) -> Any? {
    if let optional = value as? any _OptionalType { return optional._wrapped.flatMap(unwrapped) }
    return value
}

/// An array of models (a to-many relationship's value).
public protocol _ModelArray {
    static var _elementModelType: any PersistentModel.Type { get }
    static func _make(_ models: [any PersistentModel]) -> Self
    var _models: [any PersistentModel] { get }
}

extension Array: _ModelArray where Element: PersistentModel {
    public static var _elementModelType: any PersistentModel.Type { Element.self }
    public static func _make(_ models: [any PersistentModel]) -> Self { models.map { $0 as! Element } }
    public var _models: [any PersistentModel] { self }
}
