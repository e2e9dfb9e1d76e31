import Foundation

/// The parsed form of a derived attribute's ``AttributeDescription/derivationExpression``,
/// and what it depends on.
struct DerivedAttribute: Sendable {
    /// The attribute's index in its entity.
    var index: Int
    var attribute: AttributeDescription
    var expression: QueryExpression
    /// The to-one relationships whose destinations' values the expression reads
    /// (`author` of `author.name`): a change of such a destination recomputes the value.
    var toOneRelationships: [RelationshipDescription]

    /// Parses a derivation as Core Data writes it. `x.length` (a string's length through
    /// key-value coding, as Xcode's models write it) becomes `length:(x)`.
    static func parse(_ text: String) throws -> QueryExpression {
        let expression = try QueryExpression(format: text)
        if case let .keyPath(components) = expression, components.count >= 2, components.last == "length" {
            return .function("length:", [.keyPath(Array(components.dropLast()))])
        }
        return expression
    }

    /// Parses the derived attributes of an entity (once, while its model is resolved; then
    /// read from ``EntityDescription/derivedAttributes``).
    static func of(_ entity: EntityDescription) throws -> [DerivedAttribute] {
        var result: [DerivedAttribute] = []
        for (index, property) in entity.properties.enumerated() {
            guard let attribute = property.attribute, let text = attribute.derivationExpression else { continue }
            let expression: QueryExpression
            do { expression = try parse(text) } catch let error as NimbusError {
                throw NimbusError(.invalidModel, "the derivation of \(entity.name).\(attribute.name), `\(text)`, is not an expression: \(error.message)")
            }
            var toOne: [RelationshipDescription] = []
            for path in keyPaths(in: expression) {
                if let first = path.first, let relationship = entity.property(named: first)?.relationship, !relationship.isToMany,
                   path.count > 1 {
                    toOne.append(relationship)
                }
            }
            result.append(DerivedAttribute(index: index, attribute: attribute, expression: expression, toOneRelationships: toOne))
        }
        return result
    }

    /// Every key path the expression reads.
    static func keyPaths(in expression: QueryExpression) -> [[String]] {
        switch expression {
        case let .keyPath(components): return [components]
        case let .function(_, arguments), let .aggregate(arguments): return arguments.flatMap(keyPaths)
        case let .conditional(_, a, b): return keyPaths(in: a) + keyPaths(in: b)
        case let .subquery(collection, _, _): return keyPaths(in: collection)
        default: return []
        }
    }

    /// The value for `object`, in the attribute's type.
    func value(for object: ManagedObject) throws -> PropertyValue {
        let result = try PredicateEvaluator().value(expression, on: .object(object))
        guard case let .value(value) = result else {
            throw NimbusError(.typeMismatch, "the derivation of \(object.entity.name).\(attribute.name) gives a collection, not a value; "
                + "use an aggregate such as @count")
        }
        if value.isNull { return .null }
        switch (value, attribute.type) {
        case let (.integer(number), .double), let (.integer(number), .float): return .double(Double(number))
        case let (.integer(number), .decimal): return .decimal(Decimal(number))
        case let (.double(number), .integer16), let (.double(number), .integer32), let (.double(number), .integer64):
            return .integer(Int64(number.rounded(.towardZero)))
        default: return try PropertyValue(value.anyValue, for: attribute.type, transformerName: attribute.valueTransformerName)
        }
    }
}
