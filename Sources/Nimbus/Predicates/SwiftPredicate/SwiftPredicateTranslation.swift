import Foundation

/// Walks the expression tree of a Foundation `Predicate` and builds the ``QueryPredicate``
/// a format string would give, so both run as the same SQL. Anything it cannot express
/// throws ``NimbusError/Code-swift.struct/unsupported`` naming the construct; nothing is
/// left to evaluate in memory.
struct SwiftPredicateTranslation {
    /// What a sub-expression becomes: a condition or a value.
    enum Node {
        case predicate(QueryPredicate)
        case expression(QueryExpression)
    }

    /// What each `Predicate` variable stands for: the evaluated object, or the value an
    /// optional's `flatMap` unwrapped.
    var variables: [PredicateExpressions.VariableID: QueryExpression] = [:]
    private var variableCount = 0

    /// Binds a closure's variable (of `contains(where:)`, `allSatisfy`, `filter`) to a new
    /// `SUBQUERY` variable and returns its name.
    mutating func subqueryVariable(for key: PredicateExpressions.VariableID) -> String {
        variableCount += 1
        let name = "v\(variableCount)"
        variables[key] = .variable(name)
        return name
    }

    mutating func node(_ expression: some PredicateExpression) throws -> Node {
        if let translatable = expression as? any SwiftPredicateTranslatable {
            return try translatable.translate(&self)
        }
        // A sub-expression that uses no variable (a captured value, `1 + 2`) is a constant.
        if let value = try? expression.evaluate(PredicateBindings()) {
            return .expression(try Self.constant(value))
        }
        throw Self.unsupported(expression)
    }

    mutating func expression(_ expression: some PredicateExpression) throws -> QueryExpression {
        switch try node(expression) {
        case let .expression(value): value
        case let .predicate(predicate): .conditional(predicate, .constant(.bool(true)), .constant(.bool(false)))
        }
    }

    mutating func predicate(_ expression: some PredicateExpression) throws -> QueryPredicate {
        switch try node(expression) {
        case let .predicate(predicate): predicate
        case let .expression(.constant(.bool(value))): value ? .truePredicate : .falsePredicate
        case let .expression(value): .comparison(.init(value, .equal, .constant(.bool(true))))
        }
    }

    /// `a == b`, where a Boolean constant against a condition keeps (or negates) the condition.
    mutating func equality(_ lhs: some PredicateExpression, _ rhs: some PredicateExpression, negated: Bool) throws -> Node {
        let (left, right) = (try node(lhs), try node(rhs))
        switch (left, right) {
        case let (.predicate(p), .expression(.constant(.bool(value)))), let (.expression(.constant(.bool(value))), .predicate(p)):
            return .predicate(value != negated ? p : .not(p))
        default:
            let op: QueryPredicate.Comparison.Operator = negated ? .notEqual : .equal
            return .predicate(.comparison(.init(try value(left), op, try value(right))))
        }
    }

    func value(_ node: Node) throws -> QueryExpression {
        switch node {
        case let .expression(value): value
        case let .predicate(predicate): .conditional(predicate, .constant(.bool(true)), .constant(.bool(false)))
        }
    }

    /// `base.name` as a key path expression.
    static func appending(_ name: String, to base: QueryExpression, in construct: String) throws -> QueryExpression {
        switch base {
        case .evaluatedObject: return .keyPath([name])
        case let .keyPath(components): return .keyPath(components + [name])
        case let .variableKeyPath(variable, components): return .variableKeyPath(variable, components + [name])
        case let .variable(variable): return .variableKeyPath(variable, [name])
        case .subquery where name == "@count": return .function("count:", [base])
        default:
            throw NimbusError(.unsupported, "#Predicate: \(construct) reads a property of a computed value; only key paths from the fetched object translate to SQL")
        }
    }

    /// The constant for a value captured in (or computed without variables by) a predicate.
    static func constant(_ value: Any) throws -> QueryExpression {
        if let optional = value as? any OptionalValue {
            guard let wrapped = optional.wrappedValue else { return .constant(.null) }
            return try constant(wrapped)
        }
        switch value {
        case let character as Character: return .constant(.string(String(character)))
        case let range as any ClosedRangeValue: return .aggregate([try constant(range.bounds.0), try constant(range.bounds.1)])
        case is String, is Substring, is Data: break
        case let sequence as any Sequence: return .aggregate(try sequence.map { try constant($0) })
        default: break
        }
        do {
            return try PredicateConstants.expression(from: value)
        } catch {
            throw NimbusError(.unsupported, "#Predicate: a \(type(of: value)) value cannot be compared in SQL; use numbers, strings, dates, data, UUIDs, URLs or arrays of them")
        }
    }

    static func unsupported(_ expression: Any) -> NimbusError {
        let name = String(describing: type(of: expression))
        let short = name.prefix { $0 != "<" }
        return NimbusError(.unsupported, "#Predicate: \(short) is not supported in a fetch request (it has no SQL translation); rewrite it with ==, !=, <, <=, >, >=, &&, ||, !, contains, starts(with:) or a range")
    }
}

/// A `PredicateExpressions` type the translation knows.
protocol SwiftPredicateTranslatable {
    func translate(_ translation: inout SwiftPredicateTranslation) throws -> SwiftPredicateTranslation.Node
}


/// The bounds of a `ClosedRange` seen as `Any`.
protocol ClosedRangeValue {
    var bounds: (Any, Any) { get }
}

extension ClosedRange: ClosedRangeValue {
    var bounds: (Any, Any) { (lowerBound, upperBound) }
}

/// The bounds of a half-open `Range` seen as `Any`.
protocol HalfOpenRangeValue {
    var bounds: (Any, Any) { get }
}

extension Range: HalfOpenRangeValue {
    var bounds: (Any, Any) { (lowerBound, upperBound) }
}
