import Foundation

extension QueryPredicate {
    /// Parses a predicate written in Core Data's format syntax.
    ///
    /// For example:
    ///
    /// ```swift
    /// let p = try QueryPredicate(format: "name BEGINSWITH[cd] %@ AND age >= %d", "jo", 18)
    /// let q = try QueryPredicate(format: "ANY employees.salary > 1000")
    /// let r = try QueryPredicate(format: "SUBQUERY(employees, $e, $e.salary > 1000).@count > 0")
    /// ```
    ///
    /// `%@` takes a value (number, string, `Date`, `Data`, `UUID`, `URL`, `ManagedObject`,
    /// `ManagedObjectID`, or an array or set of them), `%K` a key path, `%d`/`%i`/`%ld` an
    /// integer and `%f`/`%lf` a floating-point number.
    ///
    /// - Parameters:
    ///   - format: The format string.
    ///   - arguments: One value per `%` specifier, in order.
    /// - Throws: ``NimbusError/Code-swift.struct/invalidPredicate`` with the 1-based column
    ///   of the offending text in ``NimbusError/column`` and in the message.
    public init(format: String, _ arguments: Any?...) throws {
        try self.init(format: format, argumentArray: arguments)
    }

    /// Parses a predicate, taking the `%` arguments from an array.
    ///
    /// For example:
    ///
    /// ```swift
    /// let p = try QueryPredicate(format: "%K IN %@", argumentArray: ["name", ["a", "b"]])
    /// ```
    ///
    /// - Parameters:
    ///   - format: The format string.
    ///   - argumentArray: One value per `%` specifier, in order.
    /// - Throws: ``NimbusError/Code-swift.struct/invalidPredicate`` with the column.
    public init(format: String, argumentArray: [Any?]) throws {
        var parser = try PredicateParser(format: format, arguments: argumentArray)
        self = try parser.parsePredicate()
    }

    /// Parses a predicate that may name objects by URI, as ``predicateFormat`` writes
    /// them: `CAST("x-coredata://<store>/<Entity>/p<key>", "NSManagedObjectID")` is the
    /// object of the coordinator's store.
    ///
    /// For example:
    ///
    /// ```swift
    /// let p = try QueryPredicate(format: "author == CAST('\(uri)', 'NSManagedObjectID')", argumentArray: [], coordinator: coordinator)
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidPredicate`` for a malformed format
    ///   or a URI that names no store or entity of the coordinator.
    public init(format: String, argumentArray: [Any?], coordinator: PersistentStoreCoordinator) throws {
        var parser = try PredicateParser(format: format, arguments: argumentArray)
        parser.objectIDs = { uri in coordinator.managedObjectID(forURIRepresentation: uri) }
        self = try parser.parsePredicate()
    }

    /// The predicate in format syntax; parsing it gives back an equal predicate.
    ///
    /// For example:
    ///
    /// ```swift
    /// try QueryPredicate(format: "name ==[c] 'x' && age > 3").predicateFormat
    /// // (name ==[c] "x") AND (age > 3)
    /// ```
    public var predicateFormat: String { PredicateFormatter.format(self) }

    /// A copy with `$VARIABLE`s replaced by values.
    ///
    /// Variables bound by a `SUBQUERY` inside the predicate are left alone. For example:
    ///
    /// ```swift
    /// let template = try QueryPredicate(format: "age > $minimum")
    /// let adults = template.withSubstitutionVariables(["minimum": 17])
    /// ```
    ///
    /// - Parameter variables: Values by variable name (without `$`).
    /// - Throws: ``NimbusError/Code-swift.struct/typeMismatch`` for a value that cannot be
    ///   a predicate constant.
    public func withSubstitutionVariables(_ variables: [String: Any]) throws -> QueryPredicate {
        let constants = try variables.mapValues { try PredicateConstants.expression(from: $0) }
        return substituting(constants, bound: [])
    }

    func substituting(_ values: [String: QueryExpression], bound: Set<String>) -> QueryPredicate {
        switch self {
        case .truePredicate, .falsePredicate: return self
        case let .and(parts): return .and(parts.map { $0.substituting(values, bound: bound) })
        case let .or(parts): return .or(parts.map { $0.substituting(values, bound: bound) })
        case let .not(inner): return .not(inner.substituting(values, bound: bound))
        case var .comparison(c):
            c.left = c.left.substituting(values, bound: bound)
            c.right = c.right.substituting(values, bound: bound)
            return .comparison(c)
        }
    }
}

extension QueryPredicate: CustomStringConvertible {
    /// The predicate in format syntax (see ``predicateFormat``).
    public var description: String { predicateFormat }
}

extension QueryExpression {
    /// Parses an expression in format syntax, such as `items.@sum.price` or
    /// `lowercase:(name)`.
    ///
    /// For example:
    ///
    /// ```swift
    /// let total = try QueryExpression(format: "price * quantity")
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidPredicate`` with the column.
    public init(format: String, _ arguments: Any?...) throws {
        var parser = try PredicateParser(format: format, arguments: arguments)
        self = try parser.parseExpression()
    }

    func substituting(_ values: [String: QueryExpression], bound: Set<String>) -> QueryExpression {
        switch self {
        case .constant, .keyPath, .evaluatedObject, .variableKeyPath: return self
        case let .variable(name): return bound.contains(name) ? self : (values[name] ?? self)
        case let .function(name, arguments): return .function(name, arguments.map { $0.substituting(values, bound: bound) })
        case let .aggregate(items): return .aggregate(items.map { $0.substituting(values, bound: bound) })
        case let .subquery(collection, variable, predicate):
            return .subquery(collection: collection.substituting(values, bound: bound), variable: variable,
                             predicate: predicate.substituting(values, bound: bound.union([variable])))
        case let .conditional(condition, a, b):
            return .conditional(condition.substituting(values, bound: bound), a.substituting(values, bound: bound), b.substituting(values, bound: bound))
        }
    }
}

extension QueryExpression: CustomStringConvertible {
    /// The expression in format syntax.
    public var description: String { PredicateFormatter.format(self) }
}
