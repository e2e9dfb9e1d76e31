import Foundation

extension PredicateParser {
    /// Binary arithmetic functions by operator, as `NSExpression` names them.
    static let arithmetic: [String: String] = ["+": "add:to:", "-": "from:subtract:", "*": "multiply:by:", "/": "divide:by:", "**": "raise:toPower:"]

    /// Bitwise operators, as `NSExpression` names them; they bind more loosely than `+`
    /// and `-` (`|` loosest, then `^`, then `&`), as in C.
    static let bitwise: [String: String] = ["&": "bitwiseAnd:with:", "|": "bitwiseOr:with:", "^": "bitwiseXor:with:"]

    mutating func expression() throws -> QueryExpression {
        try bitwiseLevel(["|", "^", "&"])
    }

    private mutating func bitwiseLevel(_ symbols: ArraySlice<String>) throws -> QueryExpression {
        guard let symbol = symbols.first else { return try additive() }
        var left = try bitwiseLevel(symbols.dropFirst())
        while accept(symbol: symbol) {
            left = .function(Self.bitwise[symbol]!, [left, try bitwiseLevel(symbols.dropFirst())])
        }
        return left
    }

    mutating func additive() throws -> QueryExpression {
        var left = try multiplicative()
        while case let .symbol(s) = current.kind, s == "+" || s == "-" {
            advance()
            left = .function(Self.arithmetic[s]!, [left, try multiplicative()])
        }
        return left
    }

    mutating func multiplicative() throws -> QueryExpression {
        var left = try power()
        while case let .symbol(s) = current.kind, s == "*" || s == "/" {
            advance()
            left = .function(Self.arithmetic[s]!, [left, try power()])
        }
        return left
    }

    mutating func power() throws -> QueryExpression {
        let base = try unary()
        if accept(symbol: "**") { return .function("raise:toPower:", [base, try power()]) }
        return base
    }

    mutating func unary() throws -> QueryExpression {
        try enter()
        defer { nesting -= 1 }
        if accept(symbol: "~") {
            let operand = try unary()
            if case let .constant(.integer(v)) = operand { return .constant(.integer(~v)) }
            return .function("onesComplement:", [operand])
        }
        guard accept(symbol: "-") else { return try postfix() }
        if case let .bigInteger(value) = current.kind, value == UInt64(Int64.max) + 1 {
            advance()
            return .constant(.integer(Int64.min))
        }
        let operand = try unary()
        switch operand {
        case let .constant(.integer(v)) where v != Int64.min: return .constant(.integer(-v))
        case let .constant(.double(v)): return .constant(.double(-v))
        case let .constant(.decimal(v)): return .constant(.decimal(-v))
        default: return .function("from:subtract:", [.constant(.integer(0)), operand])
        }
    }

    mutating func postfix() throws -> QueryExpression {
        var base = try primary()
        while current.kind == .symbol(".") || current.kind == .symbol("[") {
            if current.kind == .symbol("[") {
                base = try subscriptIndex(base)
                continue
            }
            let dot = current
            advance()
            let component: String
            switch current.kind {
            case let .identifier(name, escaped):
                if !escaped, keyword() != nil { throw error("'\(name)' is a reserved word; write #\(name) to use it as a key") }
                component = name
            case let .collectionOperator(name):
                guard Self.collectionOperators.contains(name.lowercased()) else {
                    throw error("unknown collection operator @\(name); use @count, @sum, @avg, @min or @max")
                }
                component = "@" + name.lowercased()
            default:
                throw error("expected a key after '.', found \(describe(current))")
            }
            advance()
            switch base {
            case let .keyPath(components): base = .keyPath(components + [component])
            case let .variable(name): base = .variableKeyPath(name, [component])
            case let .variableKeyPath(name, components): base = .variableKeyPath(name, components + [component])
            case .evaluatedObject: base = .keyPath([component])
            case .subquery, .aggregate, .function:
                guard component.hasPrefix("@") else { throw error("only a collection operator such as @count can follow here", at: dot) }
                base = Self.applyCollectionOperator(component, to: base)
            default:
                throw error("a key path cannot continue a constant", at: dot)
            }
        }
        return base
    }

    /// `array[FIRST]`, `array[LAST]`, `array[SIZE]`, `array[2]`.
    mutating func subscriptIndex(_ base: QueryExpression) throws -> QueryExpression {
        let open = current
        advance()
        let index: QueryExpression
        switch keyword() {
        case "FIRST": advance(); index = .constant(.integer(0))
        case "LAST": advance(); index = .constant(.integer(-1))
        case "SIZE":
            advance()
            try expect(symbol: "]", "after SIZE")
            return .function("count:", [base])
        default: index = try expression()
        }
        try expect(symbol: "]", "to close the index")
        switch base {
        case .keyPath, .aggregate, .constant, .variableKeyPath, .variable: break
        default: throw error("only a key path or an array can be indexed", at: open)
        }
        return .function("objectFrom:withIndex:", [base, index])
    }

    static let collectionOperators: Set<String> = ["count", "sum", "avg", "min", "max"]

    /// `SUBQUERY(…).@count` and `{1, 2}.@sum`: a function over a non-key-path collection.
    static func applyCollectionOperator(_ component: String, to base: QueryExpression) -> QueryExpression {
        let name: String = switch component {
        case "@count": "count:"
        case "@sum": "sum:"
        case "@avg": "average:"
        case "@min": "min:"
        default: "max:"
        }
        return .function(name, [base])
    }

    mutating func primary() throws -> QueryExpression {
        let token = current
        switch token.kind {
        case let .integer(value):
            advance()
            return .constant(.integer(value))
        case .bigInteger:
            throw error("integer literal is too large")
        case let .double(value):
            advance()
            return .constant(.double(value))
        case let .string(value):
            advance()
            return .constant(.string(value))
        case let .variable(name):
            advance()
            return .variable(name)
        case let .collectionOperator(name):
            throw error("@\(name) must follow a key path, as in items.@\(name)")
        case let .format(spec):
            advance()
            return try formatArgument(spec, token: token)
        case let .selector(name):
            advance()
            return try functionCall(name, token: token)
        case let .symbol(s):
            if s == "(" {
                advance()
                let inner = try expression()
                try expect(symbol: ")", "to close the parenthesis")
                return inner
            }
            if s == "{" { return try aggregate() }
            throw error("expected an expression, found \(describe(token))")
        case .end:
            throw error("unexpected end of input; expected an expression")
        case let .identifier(name, escaped):
            if escaped || keyword() == nil {
                advance()
                if !escaped, current.kind == .symbol("(") { return try functionCall(name, token: token) }
                return .keyPath([name])
            }
            return try reservedPrimary(keyword()!, token: token)
        }
    }

    mutating func reservedPrimary(_ word: String, token: PredicateToken) throws -> QueryExpression {
        advance()
        switch word {
        case "NIL", "NULL": return .constant(.null)
        case "YES", "TRUE": return .constant(.bool(true))
        case "NO", "FALSE": return .constant(.bool(false))
        case "SELF": return .evaluatedObject
        case "SUBQUERY":
            try expect(symbol: "(", "after SUBQUERY")
            let collection = try expression()
            try expect(symbol: ",", "after the SUBQUERY collection")
            guard case let .variable(variable) = current.kind else {
                throw error("expected a $variable as SUBQUERY's second argument, found \(describe(current))")
            }
            advance()
            try expect(symbol: ",", "after the SUBQUERY variable")
            let predicate = try orPredicate()
            try expect(symbol: ")", "to close SUBQUERY")
            return .subquery(collection: collection, variable: variable, predicate: predicate)
        case "TERNARY":
            try expect(symbol: "(", "after TERNARY")
            let condition = try orPredicate()
            try expect(symbol: ",", "after the TERNARY condition")
            let a = try expression()
            try expect(symbol: ",", "after TERNARY's first value")
            let b = try expression()
            try expect(symbol: ")", "to close TERNARY")
            return .conditional(condition, a, b)
        case "FUNCTION":
            try expect(symbol: "(", "after FUNCTION")
            let receiver = try expression()
            try expect(symbol: ",", "after FUNCTION's receiver")
            let selectorToken = current
            guard case let .string(selector) = current.kind else { throw error("expected a quoted function name such as 'uppercase:'") }
            advance()
            var arguments: [QueryExpression] = []
            while accept(symbol: ",") { arguments.append(try expression()) }
            try expect(symbol: ")", "to close FUNCTION")
            // FUNCTION(x, 'uppercase:') applies the function to the receiver;
            // FUNCTION(SELF, 'uppercase:', x) to the arguments.
            let name = selector.hasSuffix(":") || selector.isEmpty || selector == "now" ? selector : selector + ":"
            if case .evaluatedObject = receiver, !arguments.isEmpty || name == "now" {
                return try validatedFunction(name, arguments, raw: selector, token: selectorToken)
            }
            return try validatedFunction(name, [receiver] + arguments, raw: selector, token: selectorToken)
        case "CAST":
            return try cast(token: token)
        default:
            throw error("'\(word.lowercased())' is a reserved word and cannot start an expression; write #\(word.lowercased()) to use it as a key", at: token)
        }
    }

    /// Functions `NSExpression` knows, by selector, that Nimbus evaluates in SQL and in memory.
    static let knownFunctions: Set<String> = [
        "add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:", "raise:toPower:",
        "abs:", "sqrt:", "log:", "ln:", "exp:", "floor:", "ceiling:", "trunc:",
        "count:", "sum:", "average:", "min:", "max:", "median:",
        "lowercase:", "uppercase:", "canonical:", "now", "length:", "objectFrom:withIndex:",
        "bitwiseAnd:with:", "bitwiseOr:with:", "bitwiseXor:with:", "leftshift:by:", "rightshift:by:", "onesComplement:",
        // Fetch index hints: `noindex:(title)` keeps SQLite from using an index on the value,
        // `indexed:by:(title, 'byTitle')` names the fetch index meant (checked against the entity).
        "noindex:", "indexed:by:",
    ]

    /// `name:(args)`, `name(args)` and `now()`.
    mutating func functionCall(_ raw: String, token: PredicateToken) throws -> QueryExpression {
        try expect(symbol: "(", "after the function name")
        var arguments: [QueryExpression] = []
        if !accept(symbol: ")") {
            repeat { arguments.append(try expression()) } while accept(symbol: ",")
            try expect(symbol: ")", "to close the function call")
        }
        var name = raw
        if name == "now:" || name == "now" { name = "now" } else if !name.hasSuffix(":") { name += ":" }
        return try validatedFunction(name, arguments, raw: raw, token: token)
    }

    /// A known function with the right number of arguments.
    func validatedFunction(_ name: String, _ arguments: [QueryExpression], raw: String, token: PredicateToken) throws -> QueryExpression {
        var name = name
        var arguments = arguments
        if name == "avg:" { name = "average:" }
        guard Self.knownFunctions.contains(name) else { throw error("unknown function '\(raw)'", at: token) }
        let arity = name == "now" ? 0 : name.filter { $0 == ":" }.count
        let variadic = ["count:", "sum:", "average:", "min:", "max:", "median:"].contains(name)
        if variadic ? arguments.isEmpty : arguments.count != arity {
            throw error("\(name) takes \(arity) argument\(arity == 1 ? "" : "s"), not \(arguments.count)", at: token)
        }
        if variadic, arguments.count > 1 { arguments = [.aggregate(arguments)] }
        return .function(name, arguments)
    }

    /// `{a, b, c}`.
    mutating func aggregate() throws -> QueryExpression {
        try expect(symbol: "{", "to open an array")
        var items: [QueryExpression] = []
        if !accept(symbol: "}") {
            repeat { items.append(try expression()) } while accept(symbol: ",")
            try expect(symbol: "}", "to close the array")
        }
        return .aggregate(items)
    }

    /// `CAST(value, 'NSDate')` and friends, on constants.
    mutating func cast(token: PredicateToken) throws -> QueryExpression {
        try expect(symbol: "(", "after CAST")
        let valueToken = current
        let value = try expression()
        try expect(symbol: ",", "after CAST's value")
        guard case let .string(type) = current.kind else { throw error("expected a quoted class name such as 'NSDate'") }
        let typeToken = current
        advance()
        try expect(symbol: ")", "to close CAST")
        guard case let .constant(constant) = value else {
            throw error("CAST converts constants only", at: valueToken)
        }
        if type == "NSManagedObjectID" {
            // An object by its URI: what the formatter writes for an object ID.
            let text: String? = switch constant {
            case let .string(s): s
            case let .url(u): u.absoluteString
            default: nil
            }
            guard let text, let uri = URL(string: text), uri.scheme == "x-coredata" else {
                throw error("CAST to NSManagedObjectID takes an object's URI (x-coredata://<store>/<Entity>/p<key>)", at: valueToken)
            }
            guard let objectIDs else {
                throw error("CAST(\"\(text)\", \"NSManagedObjectID\") names an object of a store: parse it with the store's coordinator (QueryPredicate(format:argumentArray:coordinator:)) or pass the object as a %@ argument", at: valueToken)
            }
            guard let id = objectIDs(uri) else {
                throw error("no object \(text) in the coordinator's stores (unknown store or entity)", at: valueToken)
            }
            return .constant(.object(id))
        }
        guard let converted = PredicateConstants.cast(constant, to: type) else {
            throw error("cannot CAST \(PredicateFormatter.format(value)) to \(type)", at: typeToken)
        }
        return .constant(converted)
    }

    /// `%@`, `%K`, `%d`, `%f`, … consuming the next argument.
    mutating func formatArgument(_ spec: String, token: PredicateToken) throws -> QueryExpression {
        guard argumentIndex < arguments.count else {
            throw error("missing argument for %\(spec): the format has more specifiers than arguments", at: token)
        }
        let argument = arguments[argumentIndex]
        argumentIndex += 1
        switch spec.last! {
        case "K":
            guard let key = argument as? String, !key.isEmpty else {
                throw error("%K needs a key path string, not \(argument.map { "\(type(of: $0))" } ?? "nil")", at: token)
            }
            return .keyPath(key.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
        case "@":
            do { return try PredicateConstants.expression(from: argument) } catch let e as NimbusError {
                throw error(e.message, at: token)
            }
        case "d", "i", "u", "x", "X", "c":
            if let flag = argument as? Bool { return .constant(.integer(flag ? 1 : 0)) }
            guard let value = argument.flatMap({ PropertyValue.int64(from: $0) }) else {
                throw error("%\(spec) needs an integer argument", at: token)
            }
            return .constant(.integer(value))
        case "f", "g", "e", "F", "G":
            guard let value = argument.flatMap({ PropertyValue.double(from: $0) }) else {
                throw error("%\(spec) needs a number argument", at: token)
            }
            return .constant(.double(value))
        default:
            guard let value = argument as? String else { throw error("%\(spec) needs a string argument", at: token) }
            return .constant(.string(value))
        }
    }
}
