import Foundation

/// Something a predicate can be evaluated against: a managed object, a dictionary, or a
/// type of yours.
///
/// For example, a type exposing two keys:
///
/// ```swift
/// struct Point: PredicateEvaluable {
///     var x, y: Int
///     func predicateOperand(forKey key: String) throws -> PredicateOperand {
///         switch key {
///         case "x": .value(.integer(Int64(x)))
///         case "y": .value(.integer(Int64(y)))
///         default: throw NimbusError(.unknownProperty, "Point has no key \(key)")
///         }
///     }
/// }
/// try QueryPredicate(format: "x < y").evaluate(with: Point(x: 1, y: 2))   // true
/// ```
public protocol PredicateEvaluable {
    /// The value of one key: a value, another evaluable object, or a collection.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unknownProperty`` for a key the object
    ///   does not have.
    func predicateOperand(forKey key: String) throws -> PredicateOperand

    /// The object's identity when it is compared with an object or object ID (`SELF == %@`);
    /// nil for values without one.
    var predicateObjectID: ManagedObjectID? { get }
}

extension PredicateEvaluable {
    /// No identity: values such as dictionaries compare by their keys only.
    public var predicateObjectID: ManagedObjectID? { nil }
}

/// A value met while evaluating a predicate in memory.
///
/// For example, `author.name` on a book is `.object(author)` then `.value(.string("Ann"))`;
/// `tags` is `.collection([.object(tag1), .object(tag2)])`.
public enum PredicateOperand {
    /// A plain value (`.null` for nil).
    case value(PropertyValue)
    /// An object whose keys can be read further.
    case object(any PredicateEvaluable)
    /// A to-many relationship or an array.
    case collection([PredicateOperand])

    /// Converts a Swift value: `nil`, numbers, strings, dates, data, UUIDs, URLs,
    /// dictionaries `[String: Any]`, managed objects, arrays and sets of them.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/typeMismatch`` for other types.
    public init(any value: Any?) throws {
        guard let value = Self.unwrap(value) else { self = .value(.null); return }
        switch value {
        case let object as ManagedObject: self = .object(object)
        case let dictionary as [String: Any]: self = .object(dictionary)
        case let evaluable as any PredicateEvaluable: self = .object(evaluable)
        case let array as [Any?]: self = .collection(try array.map(PredicateOperand.init(any:)))
        case let set as Set<AnyHashable>: self = .collection(try set.map { try PredicateOperand(any: $0.base) })
        default: self = .value(try PredicateConstants.constant(from: value))
        }
    }

    /// Strips optionals nested in `Any`, and maps `NSNull` to nil.
    static func unwrap(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if value is NSNull { return nil }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let child = mirror.children.first else { return nil }
            return unwrap(child.value)
        }
        return value
    }
}

extension ManagedObject: PredicateEvaluable {
    /// Attributes as their stored values, to-one relationships as objects, to-many as
    /// collections of objects.
    public func predicateOperand(forKey key: String) throws -> PredicateOperand {
        let index = try propertyIndex(key)
        guard let value = primitiveValue(forKey: key) else { return .value(.null) }
        if let attribute = entity.properties[index].attribute, attribute.type == .transformable, case .data = value {
            // The registered type's value, as a fetch compares the constant's encoding with it.
            if let decoded = self.value(forKey: key), !(decoded is Data), let operand = try? PredicateOperand(any: decoded) { return operand }
            return .value(value)
        }
        guard entity.properties[index].relationship != nil else { return .value(value) }
        switch value {
        case let .object(id):
            guard let context = managedObjectContext else { return .value(value) }
            return .object(context.object(with: id))
        case let .objects(ids):
            guard let context = managedObjectContext else { return .collection(ids.map { .value(.object($0)) }) }
            return .collection(ids.map { .object(context.object(with: $0)) })
        default:
            return .value(value)
        }
    }

    /// The object's ID, so `SELF == %@` and `author == %@` compare identities.
    public var predicateObjectID: ManagedObjectID? { objectID }
}

extension Dictionary: PredicateEvaluable where Key == String, Value == Any {
    /// The value under a key; a missing key reads as nil.
    public func predicateOperand(forKey key: String) throws -> PredicateOperand {
        try PredicateOperand(any: self[key])
    }
}
