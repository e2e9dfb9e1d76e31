import Foundation

// Each `PredicateExpressions` type that has a meaning in the predicate language.

extension PredicateExpressions.Variable: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        guard let bound = t.variables[key] else {
            throw NimbusError(.unsupported, "#Predicate: a variable of a closure (such as filter or allSatisfy) is not supported in a fetch request")
        }
        return .expression(bound)
    }
}

extension PredicateExpressions.Value: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        .expression(try SwiftPredicateTranslation.constant(value))
    }
}

extension PredicateExpressions.NilLiteral: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        .expression(.constant(.null))
    }
}

extension PredicateExpressions.KeyPath: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        let base = try t.expression(root)
        switch base {
        case .constant, .aggregate:
            // A property of a captured value (`names.first`) is a constant.
            if let value = try? evaluate(PredicateBindings()) { return .expression(try SwiftPredicateTranslation.constant(value)) }
        default:
            break
        }
        if let kind {
            let isText = Root.Output.self == String.self || Root.Output.self == Substring.self
            switch kind {
            case .collectionCount where isText:
                return .expression(.function("length:", [base]))
            case .collectionCount:
                return .expression(try SwiftPredicateTranslation.appending("@count", to: base, in: "count"))
            case .collectionIsEmpty where isText:
                return .predicate(.comparison(.init(.function("length:", [base]), .equal, .constant(.integer(0)))))
            case .collectionIsEmpty:
                let count = try SwiftPredicateTranslation.appending("@count", to: base, in: "isEmpty")
                return .predicate(.comparison(.init(count, .equal, .constant(.integer(0)))))
            case .collectionFirst, .bidirectionalCollectionLast:
                throw NimbusError(.unsupported, "#Predicate: first and last of a collection are not supported in a fetch request")
            }
        }
        if Root.Output.self is any ManagedRawRepresentable.Type {
            // A key path formed in the predicate names `rawValue` by the enum's own getter,
            // which no generic code can compare it with: say what works instead.
            throw NimbusError(.unsupported, "#Predicate: \(keyPath) reads a property of a \(Root.Output.self), which is stored as its raw value; compare the \(Root.Output.self) itself ($0.property == value, or [values].contains($0.property))")
        }
        guard let naming = Root.Output.self as? any KeyPathPropertyNaming.Type else {
            throw NimbusError(.unsupported, "#Predicate: a key path of \(Root.Output.self) (to a \(Output.self)) is not supported; only properties of managed object classes that conform to ManagedObjectKeyPathNaming translate to SQL")
        }
        guard let name = naming.propertyName(for: keyPath) else {
            throw NimbusError(.unsupported, "#Predicate: \(Root.Output.self).propertyName(for:) names no model property for a key path to a \(Output.self); computed properties have no SQL translation")
        }
        return .expression(try SwiftPredicateTranslation.appending(name, to: base, in: "\(keyPath)"))
    }
}

extension PredicateExpressions.Equal: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        try t.equality(lhs, rhs, negated: false)
    }
}

extension PredicateExpressions.NotEqual: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        try t.equality(lhs, rhs, negated: true)
    }
}

extension PredicateExpressions.Comparison: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        let symbol: QueryPredicate.Comparison.Operator = switch op {
        case .lessThan: .lessThan
        case .lessThanOrEqual: .lessThanOrEqual
        case .greaterThan: .greaterThan
        case .greaterThanOrEqual: .greaterThanOrEqual
        }
        return .predicate(.comparison(.init(try t.expression(lhs), symbol, try t.expression(rhs))))
    }
}

extension PredicateExpressions.Conjunction: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        var parts: [QueryPredicate] = []
        for part in [try t.predicate(lhs), try t.predicate(rhs)] {
            if case let .and(inner) = part { parts += inner } else { parts.append(part) }
        }
        return .predicate(.and(parts))
    }
}

extension PredicateExpressions.Disjunction: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        var parts: [QueryPredicate] = []
        for part in [try t.predicate(lhs), try t.predicate(rhs)] {
            if case let .or(inner) = part { parts += inner } else { parts.append(part) }
        }
        return .predicate(.or(parts))
    }
}

extension PredicateExpressions.Negation: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        .predicate(.not(try t.predicate(wrapped)))
    }
}

extension PredicateExpressions.SequenceContains: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        .predicate(.comparison(.init(try t.expression(element), .in, try t.expression(sequence))))
    }
}

extension PredicateExpressions.CollectionContainsCollection: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        guard Base.Output.self is any StringProtocol.Type else { throw SwiftPredicateTranslation.unsupported(self) }
        return .predicate(.comparison(.init(try t.expression(base), .contains, try t.expression(other))))
    }
}

extension PredicateExpressions.SequenceStartsWith: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        guard Base.Output.self is any StringProtocol.Type else { throw SwiftPredicateTranslation.unsupported(self) }
        return .predicate(.comparison(.init(try t.expression(base), .beginsWith, try t.expression(prefix))))
    }
}

extension PredicateExpressions.ClosedRange: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        .expression(.aggregate([try t.expression(lower), try t.expression(upper)]))
    }
}

/// `lower..<upper` inside a predicate.
protocol HalfOpenRangeExpression {
    func bounds(_ t: inout SwiftPredicateTranslation) throws -> (QueryExpression, QueryExpression)
}

extension PredicateExpressions.Range: HalfOpenRangeExpression {
    func bounds(_ t: inout SwiftPredicateTranslation) throws -> (QueryExpression, QueryExpression) {
        (try t.expression(lower), try t.expression(upper))
    }
}

extension PredicateExpressions.RangeExpressionContains: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        let value = try t.expression(element)
        var halfOpen: (QueryExpression, QueryExpression)?
        if let range = range as? any HalfOpenRangeExpression {
            halfOpen = try range.bounds(&t)
        } else if let captured = try? range.evaluate(PredicateBindings()), let range = captured as? any HalfOpenRangeValue {
            halfOpen = (try SwiftPredicateTranslation.constant(range.bounds.0), try SwiftPredicateTranslation.constant(range.bounds.1))
        }
        if let (lower, upper) = halfOpen {
            return .predicate(.and([.comparison(.init(value, .greaterThanOrEqual, lower)), .comparison(.init(value, .lessThan, upper))]))
        }
        guard case let .aggregate(bounds) = try t.expression(range), bounds.count == 2 else {
            throw NimbusError(.unsupported, "#Predicate: only closed (a...b) and half-open (a..<b) ranges translate to SQL")
        }
        return .predicate(.comparison(.init(value, .between, .aggregate(bounds))))
    }
}

extension PredicateExpressions.OptionalFlatMap: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        // A key path through nil is nil in SQL, so `a?.b` is simply `a.b`.
        t.variables[variable.key] = try t.expression(wrapped)
        return try t.node(transform)
    }
}

extension PredicateExpressions.ForcedUnwrap: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        try t.node(inner)
    }
}

extension PredicateExpressions.NilCoalesce: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        let left = try t.node(lhs)
        let right = try t.node(rhs)
        switch (left, right) {
        case let (.predicate(p), .expression(.constant(.bool(false)))):
            // `a?.contains(x) ?? false`: a condition on nil is false in SQL already.
            return .predicate(p)
        case let (.expression(value), _):
            let isNil = QueryPredicate.comparison(.init(value, .notEqual, .constant(.null)))
            return .expression(.conditional(isNil, value, try t.value(right)))
        default:
            throw NimbusError(.unsupported, "#Predicate: `?? true` after a condition is not supported in a fetch request; test for nil explicitly")
        }
    }
}

extension PredicateExpressions.Arithmetic: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        let (left, right) = (try t.expression(lhs), try t.expression(rhs))
        return switch op {
        case .add: .expression(.function("add:to:", [left, right]))
        case .subtract: .expression(.function("from:subtract:", [left, right]))
        case .multiply: .expression(.function("multiply:by:", [left, right]))
        }
    }
}

extension PredicateExpressions.Conditional: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        .expression(.conditional(try t.predicate(test), try t.expression(trueBranch), try t.expression(falseBranch)))
    }
}

// Closures over to-many relationships become SUBQUERY, as Core Data writes them.

extension PredicateExpressions.SequenceContainsWhere: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        let collection = try t.expression(sequence)
        let name = t.subqueryVariable(for: variable.key)
        let subquery = QueryExpression.subquery(collection: collection, variable: name, predicate: try t.predicate(test))
        return .predicate(.comparison(.init(.function("count:", [subquery]), .notEqual, .constant(.integer(0)))))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        let collection = try t.expression(sequence)
        let name = t.subqueryVariable(for: variable.key)
        let subquery = QueryExpression.subquery(collection: collection, variable: name, predicate: .not(try t.predicate(test)))
        return .predicate(.comparison(.init(.function("count:", [subquery]), .equal, .constant(.integer(0)))))
    }
}

extension PredicateExpressions.Filter: SwiftPredicateTranslatable {
    func translate(_ t: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node {
        let collection = try t.expression(sequence)
        let name = t.subqueryVariable(for: variable.key)
        return .expression(.subquery(collection: collection, variable: name, predicate: try t.predicate(filter)))
    }
}
