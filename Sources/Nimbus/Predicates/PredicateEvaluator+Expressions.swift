import Foundation

extension QueryExpression {
    /// Evaluates the expression in memory against an object.
    ///
    /// For example:
    ///
    /// ```swift
    /// let total = try QueryExpression(format: "items.@sum.price").value(with: order)
    /// ```
    ///
    /// - Returns: The value; a collection for to-many key paths and arrays.
    /// - Throws: as ``QueryPredicate/evaluate(with:)-(PredicateEvaluable)``.
    public func value(with object: some PredicateEvaluable) throws -> PredicateOperand {
        try PredicateEvaluator().value(self, on: .object(object))
    }
}

extension PredicateEvaluator {
    func value(_ expression: QueryExpression, on object: PredicateOperand) throws -> PredicateOperand {
        switch expression {
        case let .constant(.objects(ids)): return .collection(ids.map { .value(.object($0)) })
        case let .constant(value): return .value(value)
        case let .keyPath(components): return try resolve(object, components[...])
        case .evaluatedObject: return object
        case let .variable(name): return try variable(name)
        case let .variableKeyPath(name, components): return try resolve(variable(name), components[...])
        case let .aggregate(items): return .collection(try items.map { try value($0, on: object) })
        case let .subquery(collection, variableName, predicate):
            var inner = self
            var kept: [PredicateOperand] = []
            for element in Self.elements(try value(collection, on: object)) {
                inner.variables[variableName] = element
                if try inner.evaluate(predicate, on: object) { kept.append(element) }
            }
            return .collection(kept)
        case let .conditional(condition, a, b):
            return try value(evaluate(condition, on: object) ? a : b, on: object)
        case let .function(name, arguments):
            return try function(name, arguments.map { try value($0, on: object) })
        }
    }

    func variable(_ name: String) throws -> PredicateOperand {
        guard let bound = variables[name] else {
            throw NimbusError(.invalidPredicate, "variable $\(name) has no value; bind it with withSubstitutionVariables([\"\(name)\": …])")
        }
        return bound
    }

    /// Follows a key path: through objects, across collections (flattening them), and
    /// through collection operators (`@count`, `@sum.price`, …).
    func resolve(_ start: PredicateOperand, _ components: ArraySlice<String>) throws -> PredicateOperand {
        var current = start
        var index = components.startIndex
        while index < components.endIndex {
            let component = components[index]
            index += 1
            if component.hasPrefix("@") {
                let elements = Self.elements(current)
                if component == "@count" { return .value(.integer(Int64(elements.count))) }
                let values = try elements.flatMap { Self.elements(try resolve($0, components[index...])) }
                return .value(try Self.aggregate(component, values.map(scalar)))
            }
            current = try step(current, component, rest: components[index...])
        }
        return current
    }

    private func step(_ operand: PredicateOperand, _ key: String, rest: ArraySlice<String>) throws -> PredicateOperand {
        switch operand {
        case .value(.null): return .value(.null)
        case let .object(object):
            let next = try object.predicateOperand(forKey: key)
            // A nil to-one on the way to a to-many gives no elements, as SQL's joins do.
            if case .value(.null) = next, let managed = object as? ManagedObject,
               let relationship = managed.entity.property(named: key)?.relationship,
               let destination = managed.entity.destination(of: relationship), Self.crossesToMany(destination, rest) {
                return .collection([])
            }
            return next
        case let .collection(items):
            var result: [PredicateOperand] = []
            for item in items {
                let next = try step(item, key, rest: rest)
                if case let .collection(inner) = next { result += inner } else { result.append(next) }
            }
            return .collection(result)
        case let .value(value):
            throw NimbusError(.unknownProperty, "cannot read key \(key) of the value \(PredicateFormatter.format(value))")
        }
    }

    /// Whether a key path from an entity goes through a to-many relationship.
    static func crossesToMany(_ entity: EntityDescription, _ components: ArraySlice<String>) -> Bool {
        var current = entity
        for component in components {
            guard let relationship = current.property(named: component)?.relationship else { return false }
            if relationship.isToMany { return true }
            guard let next = current.destination(of: relationship) else { return false }
            current = next
        }
        return false
    }

    /// `@sum`, `@avg`, `@min`, `@max` over values; nils are skipped, as SQL aggregates do.
    static func aggregate(_ name: String, _ values: [PropertyValue]) throws -> PropertyValue {
        let present = values.filter { !$0.isNull }
        switch name {
        case "@sum", "sum:":
            var result: PropertyValue = .integer(0)
            for value in present { result = try arithmetic("add:to:", result, value) }
            return result
        case "@avg", "average:":
            guard !present.isEmpty else { return .null }
            var total = 0.0
            for value in present {
                guard let number = PredicateSemantics.number(value) else { throw PredicateSemantics.mismatch(value, .integer(0), "average") }
                switch number {
                case let .integer(v): total += Double(v)
                case let .double(v): total += v
                }
            }
            return .double(total / Double(present.count))
        case "@min", "min:", "@max", "max:":
            var best: PropertyValue = .null
            let wantsMin = name.contains("min")
            for value in present {
                if best.isNull { best = value; continue }
                let order = try PredicateSemantics.compare(value, best)
                if wantsMin ? order == .orderedAscending : order == .orderedDescending { best = value }
            }
            return best
        default:
            throw NimbusError(.invalidPredicate, "unknown collection operator \(name); use @count, @sum, @avg, @min or @max")
        }
    }

    func function(_ name: String, _ arguments: [PredicateOperand]) throws -> PredicateOperand {
        try Self.checkArity(name, arguments.count)
        switch name {
        case "noindex:", "indexed:by:": return arguments[0]   // index hints: the value itself
        case "now": return .value(.date(Date()))
        case "count:": return .value(.integer(Int64(arguments.flatMap(Self.elements).count)))
        case "sum:", "average:", "min:", "max:":
            return .value(try Self.aggregate(name, arguments.flatMap(Self.elements).map(scalar)))
        case "objectFrom:withIndex:":
            let items = Self.elements(arguments[0])
            guard case let .value(.integer(i)) = arguments[1] else {
                throw NimbusError(.typeMismatch, "an array index must be an integer, FIRST, LAST or SIZE")
            }
            let position = i < 0 ? items.count + Int(i) : Int(i)
            return items.indices.contains(position) ? items[position] : .value(.null)
        case "median:":
            let values = try arguments.flatMap(Self.elements).map(scalar).filter { !$0.isNull }
                .sorted { try PredicateSemantics.compare($0, $1) == .orderedAscending }
            guard !values.isEmpty else { return .value(.null) }
            return .value(values[values.count / 2])
        default: break
        }
        let values = try arguments.map(scalar)
        switch name {
        case "lowercase:", "uppercase:", "length:", "canonical:":
            guard case let .string(s) = values[0] else {
                if values[0].isNull { return .value(.null) }
                throw PredicateSemantics.mismatch(values[0], .string(""), "apply \(name) to")
            }
            if name == "length:" { return .value(.integer(Int64(s.unicodeScalars.count))) }
            if name == "canonical:" { return .value(.string(StringFolding.fold(s, caseInsensitive: true, diacriticInsensitive: true))) }
            return .value(.string(name == "lowercase:" ? s.lowercased() : s.uppercased()))
        case _ where PredicateBitwise.names.contains(name):
            return .value(try PredicateBitwise.evaluate(name, values))
        default:
            return .value(try Self.arithmetic(name, values[0], values.count > 1 ? values[1] : .null))
        }
    }

    /// Throws unless a function gets the arguments it needs (ASTs built in code skip the parser's check).
    static func checkArity(_ name: String, _ count: Int) throws {
        let needed = name == "now" ? 0 : max(1, name.filter { $0 == ":" }.count)
        guard count >= needed else {
            throw NimbusError(.invalidPredicate, "function \(name) needs \(needed) argument\(needed == 1 ? "" : "s"), not \(count)")
        }
    }

    /// Arithmetic with SQLite's rules: integers stay integers (overflow and `**` give
    /// doubles), division by zero gives nil, `modulus:by:` works on integers.
    static func arithmetic(_ name: String, _ a: PropertyValue, _ b: PropertyValue) throws -> PropertyValue {
        let unary = ["abs:", "sqrt:", "log:", "ln:", "exp:", "floor:", "ceiling:", "trunc:"].contains(name)
        if a.isNull || (!unary && b.isNull) { return .null }
        guard let x = PredicateSemantics.number(a), unary || PredicateSemantics.number(b) != nil else {
            throw PredicateSemantics.mismatch(a, b, "compute \(name) with")
        }
        if case .date = a { throw PredicateSemantics.mismatch(a, b, "compute \(name) with") }
        if case .date = b { throw PredicateSemantics.mismatch(a, b, "compute \(name) with") }
        func double(_ n: PredicateSemantics.Number) -> Double {
            switch n { case let .integer(v): Double(v); case let .double(v): v }
        }
        if unary {
            let v = double(x)
            switch name {
            case "abs:":
                if case let .integer(i) = x, i != Int64.min { return .integer(abs(i)) }
                return .double(abs(v))
            case "sqrt:": return v < 0 ? .null : .double(v.squareRoot())
            case "log:": return v <= 0 ? .null : .double(Foundation.log10(v))
            case "ln:": return v <= 0 ? .null : .double(Foundation.log(v))
            case "exp:": return .double(Foundation.exp(v))
            case "floor:": return .double(v.rounded(.down))
            case "ceiling:": return .double(v.rounded(.up))
            default: return .double(v.rounded(.towardZero))
            }
        }
        let y = PredicateSemantics.number(b)!
        if name == "raise:toPower:" { return .double(Foundation.pow(double(x), double(y))) }
        if name == "modulus:by:" {
            let i: Int64 = switch x { case let .integer(v): v; case let .double(v): Int64(exactly: v.rounded(.towardZero)) ?? 0 }
            let j: Int64 = switch y { case let .integer(v): v; case let .double(v): Int64(exactly: v.rounded(.towardZero)) ?? 0 }
            if j == 0 { return .null }
            if j == -1 { return .integer(0) }
            return .integer(i % j)
        }
        if case let .integer(i) = x, case let .integer(j) = y {
            let (result, overflow): (Int64, Bool)
            switch name {
            case "add:to:": (result, overflow) = i.addingReportingOverflow(j)
            case "from:subtract:": (result, overflow) = i.subtractingReportingOverflow(j)
            case "multiply:by:": (result, overflow) = i.multipliedReportingOverflow(by: j)
            case "divide:by:":
                if j == 0 { return .null }
                (result, overflow) = i.dividedReportingOverflow(by: j)
            default: throw NimbusError(.invalidPredicate, "unknown function \(name)")
            }
            if !overflow { return .integer(result) }
        }
        let p = double(x), q = double(y)
        switch name {
        case "add:to:": return .double(p + q)
        case "from:subtract:": return .double(p - q)
        case "multiply:by:": return .double(p * q)
        case "divide:by:": return q == 0 ? .null : .double(p / q)
        default: throw NimbusError(.invalidPredicate, "unknown function \(name)")
        }
    }
}
