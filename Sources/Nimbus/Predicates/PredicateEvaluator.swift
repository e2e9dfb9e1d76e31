import Foundation

extension QueryPredicate {
    /// Evaluates the predicate in memory against an object.
    ///
    /// The answer is the one a fetch from the SQLite store gives for the same saved object
    /// (see `PredicateSemantics` for the rules). For example:
    ///
    /// ```swift
    /// let p = try QueryPredicate(format: "ANY tags.name ==[c] %@", "swift")
    /// if try p.evaluate(with: post) { … }
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unknownProperty`` for a key the object
    ///   lacks, ``NimbusError/Code-swift.struct/typeMismatch`` for a comparison between
    ///   values of incompatible types, ``NimbusError/Code-swift.struct/invalidPredicate``
    ///   for an unbound `$VARIABLE`.
    public func evaluate(with object: some PredicateEvaluable) throws -> Bool {
        try PredicateEvaluator().evaluate(self, on: .object(object))
    }

    /// Evaluates the predicate against a dictionary (a missing key reads as nil).
    ///
    /// For example:
    ///
    /// ```swift
    /// try QueryPredicate(format: "age > 18").evaluate(with: ["age": 30])   // true
    /// ```
    ///
    /// - Throws: as ``evaluate(with:)-(PredicateEvaluable)``.
    public func evaluate(with dictionary: [String: Any]) throws -> Bool {
        try PredicateEvaluator().evaluate(self, on: .object(dictionary))
    }
}

/// Evaluates predicates and expressions in memory.
struct PredicateEvaluator {
    /// Subquery and substitution variables in scope.
    var variables: [String: PredicateOperand] = [:]

    func evaluate(_ predicate: QueryPredicate, on object: PredicateOperand) throws -> Bool {
        switch predicate {
        case .truePredicate: return true
        case .falsePredicate: return false
        case let .and(parts):
            for part in parts where try !evaluate(part, on: object) { return false }
            return true
        case let .or(parts):
            for part in parts where try evaluate(part, on: object) { return true }
            return false
        case let .not(inner): return try !evaluate(inner, on: object)
        case let .comparison(c): return try evaluate(c, on: object)
        }
    }

    func evaluate(_ c: QueryPredicate.Comparison, on object: PredicateOperand) throws -> Bool {
        let left = try value(c.left, on: object)
        let right = try value(c.right, on: object)
        switch c.modifier {
        case .any:
            for element in Self.elements(left) where try test(element, c.op, right, c.options) { return true }
            return false
        case .all:
            for element in Self.elements(left) where try !test(element, c.op, right, c.options) { return false }
            return true
        case .direct:
            if case .collection = left, c.op != .contains, c.op != .in || !Self.isCollection(right) {
                // A to-many key path without ANY compares any of its elements.
                for element in Self.elements(left) where try test(element, c.op, right, c.options) { return true }
                return false
            }
            return try test(left, c.op, right, c.options)
        }
    }

    static func isCollection(_ operand: PredicateOperand) -> Bool {
        if case .collection = operand { true } else { false }
    }

    /// The elements of a collection; a single value is a collection of one, nil of none.
    static func elements(_ operand: PredicateOperand) -> [PredicateOperand] {
        switch operand {
        case let .collection(items): items
        case .value(.null): []
        default: [operand]
        }
    }

    /// One comparison between a single left value and a right operand.
    func test(_ left: PredicateOperand, _ op: QueryPredicate.Comparison.Operator, _ right: PredicateOperand,
              _ options: QueryPredicate.Comparison.Options) throws -> Bool {
        switch op {
        case .in:
            if case let .collection(items) = right {
                if case let .collection(lefts) = left {
                    for l in lefts { for r in items where try equal(l, r, options) { return true } }
                    return false
                }
                for item in items where try equal(left, item, options) { return true }
                return false
            }
            return try stringTest(right, left, options, "IN") { PredicateSemantics.contains($0, $1) }
        case .contains:
            if case let .collection(items) = left {
                for item in items where try equal(item, right, options) { return true }
                return false
            }
            return try stringTest(left, right, options, "CONTAINS") { PredicateSemantics.contains($0, $1) }
        case .between:
            let bounds = Self.elements(right)
            guard bounds.count == 2 else { throw NimbusError(.typeMismatch, "BETWEEN needs two bounds, as in {1, 10}") }
            return try test(left, .greaterThanOrEqual, bounds[0], options) && test(left, .lessThanOrEqual, bounds[1], options)
        case .equal: return try equal(left, right, options)
        case .notEqual: return try !equal(left, right, options)
        case .beginsWith: return try stringTest(left, right, options, "BEGINSWITH") { PredicateSemantics.beginsWith($0, $1) }
        case .endsWith: return try stringTest(left, right, options, "ENDSWITH") { PredicateSemantics.endsWith($0, $1) }
        case .like: return try stringTest(left, right, options, "LIKE") { PredicateSemantics.like($0, $1) }
        case .matches:
            guard let (text, pattern) = try strings(left, right, [], "MATCHES") else { return false }
            let d: QueryPredicate.Comparison.Options = options.intersection(.diacriticInsensitive)
            return try PredicateSemantics.matches(PredicateSemantics.fold(text, d), PredicateSemantics.fold(pattern, d),
                                                  caseInsensitive: options.contains(.caseInsensitive))
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            let a = try scalar(left), b = try scalar(right)
            if a.isNull || b.isNull { return false }
            let order: ComparisonResult
            if case let .string(x) = a, case let .string(y) = b {
                order = PredicateSemantics.binaryCompare(PredicateSemantics.fold(x, options), PredicateSemantics.fold(y, options))
            } else {
                if case .object = a { throw PredicateSemantics.mismatch(a, b, "order") }
                order = try PredicateSemantics.compare(a, b)
            }
            switch op {
            case .lessThan: return order == .orderedAscending
            case .lessThanOrEqual: return order != .orderedDescending
            case .greaterThan: return order == .orderedDescending
            default: return order != .orderedAscending
            }
        }
    }

    func equal(_ left: PredicateOperand, _ right: PredicateOperand, _ options: QueryPredicate.Comparison.Options) throws -> Bool {
        switch (left, right) {
        case (.value(.null), .value(.null)): return true
        case (.value(.null), _), (_, .value(.null)): return false
        default: break
        }
        let a = try scalar(left), b = try scalar(right)
        if case let .string(x) = a, case let .string(y) = b {
            return PredicateSemantics.binaryCompare(PredicateSemantics.fold(x, options), PredicateSemantics.fold(y, options)) == .orderedSame
        }
        return try PredicateSemantics.equal(a, b)
    }

    /// Two strings for a string operator, folded; nil when either is nil.
    func strings(_ left: PredicateOperand, _ right: PredicateOperand, _ options: QueryPredicate.Comparison.Options,
                 _ name: String) throws -> (String, String)? {
        let a = try scalar(left), b = try scalar(right)
        if a.isNull || b.isNull { return nil }
        // A URL is its text here, as its column holds it (`url BEGINSWITH 'https:'`).
        func text(_ value: PropertyValue) -> String? {
            switch value {
            case let .string(s): s
            case let .url(u): u.absoluteString
            default: nil
            }
        }
        guard let x = text(a), let y = text(b) else {
            throw PredicateSemantics.mismatch(a, b, "apply \(name) to")
        }
        return (PredicateSemantics.fold(x, options), PredicateSemantics.fold(y, options))
    }

    func stringTest(_ left: PredicateOperand, _ right: PredicateOperand, _ options: QueryPredicate.Comparison.Options,
                    _ name: String, _ test: (String, String) -> Bool) throws -> Bool {
        guard let (x, y) = try strings(left, right, options, name) else { return false }
        return test(x, y)
    }

    /// A single value: objects become their IDs.
    func scalar(_ operand: PredicateOperand) throws -> PropertyValue {
        switch operand {
        case let .value(value): return value
        case let .object(object):
            guard let id = object.predicateObjectID else {
                throw NimbusError(.typeMismatch, "an object without an object ID cannot be compared; compare one of its keys")
            }
            return .object(id)
        case .collection:
            throw NimbusError(.typeMismatch, "a collection cannot be compared as one value; use ANY, ALL, NONE, IN, CONTAINS or an operator such as @count")
        }
    }
}
