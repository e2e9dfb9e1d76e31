import Foundation

/// A recursive-descent parser for Core Data's predicate format syntax.
///
/// Precedence, loosest first: `OR`/`||`, `AND`/`&&`, `NOT`/`!`, comparisons, `+ -`,
/// `* /`, `**`, unary minus, key paths (`a.b.@count`). Reserved words are
/// case-insensitive; `#word` uses a reserved word as a key.
struct PredicateParser {
    var tokens: [PredicateToken]
    var position = 0
    var arguments: [Any?]
    var argumentIndex = 0
    /// Current nesting of parentheses, operators and functions, bounded so that deep input
    /// fails with an error instead of exhausting the stack.
    var nesting = 0
    /// Parenthesized predicates retried as expressions, bounded so that input built to
    /// make the parser backtrack fails quickly instead of running for exponential time.
    var backtracks = 0
    /// Token positions where a parenthesized predicate failed to parse (it never will).
    var failedPredicateStarts: Set<Int> = []
    /// Resolves `CAST("x-coredata://…", "NSManagedObjectID")` to an object ID (a
    /// coordinator's stores); without it such a CAST is refused.
    var objectIDs: (@Sendable (URL) -> ManagedObjectID?)?
    static let maximumNesting = 100
    static let maximumBacktracks = 5_000

    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "IN", "ANY", "ALL", "NONE", "SOME", "BETWEEN", "BEGINSWITH", "ENDSWITH",
        "CONTAINS", "LIKE", "MATCHES", "TRUEPREDICATE", "FALSEPREDICATE", "NULL", "NIL", "SELF",
        "TRUE", "FALSE", "YES", "NO", "SUBQUERY", "FUNCTION", "CAST", "TERNARY", "FIRST", "LAST", "SIZE",
    ]

    init(format: String, arguments: [Any?]) throws {
        tokens = try PredicateLexer.tokens(format)
        self.arguments = arguments
    }

    /// Parses the whole input as one predicate.
    mutating func parsePredicate() throws -> QueryPredicate {
        let predicate = try orPredicate()
        guard current.kind == .end else { throw error("unexpected \(describe(current))") }
        return predicate
    }

    /// Parses the whole input as one expression.
    mutating func parseExpression() throws -> QueryExpression {
        let expression = try self.expression()
        guard current.kind == .end else { throw error("unexpected \(describe(current))") }
        return expression
    }

    // MARK: Tokens

    var current: PredicateToken { tokens[position] }

    func error(_ message: String, at token: PredicateToken? = nil) -> NimbusError {
        PredicateLexer.error(message, column: (token ?? current).column)
    }

    func describe(_ token: PredicateToken) -> String {
        switch token.kind {
        case let .identifier(name, escaped): "'\(escaped ? "#" : "")\(name)'"
        case let .collectionOperator(name): "'@\(name)'"
        case let .variable(name): "'$\(name)'"
        case let .selector(name): "'\(name)'"
        case let .integer(value): "'\(value)'"
        case let .bigInteger(value): "'\(value)'"
        case let .double(value): "'\(value)'"
        case .string: "a string"
        case let .format(spec): "'%\(spec)'"
        case let .symbol(symbol): "'\(symbol)'"
        case .end: "end of input"
        }
    }

    /// The upper-cased reserved word at the cursor, if any.
    func keyword(_ token: PredicateToken? = nil) -> String? {
        guard case let .identifier(name, escaped) = (token ?? current).kind, !escaped else { return nil }
        let upper = name.uppercased()
        return Self.reservedWords.contains(upper) ? upper : nil
    }

    mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    mutating func accept(symbol: String) -> Bool {
        guard current.kind == .symbol(symbol) else { return false }
        advance()
        return true
    }

    mutating func accept(keyword word: String) -> Bool {
        guard keyword() == word else { return false }
        advance()
        return true
    }

    mutating func expect(symbol: String, _ what: String) throws {
        guard accept(symbol: symbol) else { throw error("expected '\(symbol)' \(what), found \(describe(current))") }
    }

    // MARK: Predicates

    /// Enters one level of nesting; call `nesting -= 1` on the way out.
    mutating func enter() throws {
        nesting += 1
        if nesting > Self.maximumNesting {
            throw error("the predicate nests deeper than \(Self.maximumNesting) levels")
        }
    }

    mutating func orPredicate() throws -> QueryPredicate {
        try enter()
        defer { nesting -= 1 }
        var parts = [try andPredicate()]
        while accept(keyword: "OR") || accept(symbol: "||") { parts.append(try andPredicate()) }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    mutating func andPredicate() throws -> QueryPredicate {
        var parts = [try notPredicate()]
        while accept(keyword: "AND") || accept(symbol: "&&") { parts.append(try notPredicate()) }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    mutating func notPredicate() throws -> QueryPredicate {
        if accept(keyword: "NOT") || accept(symbol: "!") {
            try enter()
            defer { nesting -= 1 }
            return .not(try notPredicate())
        }
        return try primaryPredicate()
    }

    mutating func primaryPredicate() throws -> QueryPredicate {
        if accept(keyword: "TRUEPREDICATE") { return .truePredicate }
        if accept(keyword: "FALSEPREDICATE") { return .falsePredicate }
        if current.kind == .symbol("("), !failedPredicateStarts.contains(position) {
            // Either a parenthesized predicate or an expression such as `(a + b) > 3`.
            let start = position
            let saved = argumentIndex
            let savedNesting = nesting
            backtracks += 1
            if backtracks > Self.maximumBacktracks { throw error("the predicate is too complex to parse") }
            do {
                advance()
                let inner = try orPredicate()
                try expect(symbol: ")", "to close the parenthesis")
                if comparisonOperatorAhead() == false { return inner }
            } catch let first as NimbusError {
                if first.message.contains("too complex") || first.message.contains("nests deeper") { throw first }
                failedPredicateStarts.insert(start)
                position = start
                argumentIndex = saved
                nesting = savedNesting
                do { return try comparison() } catch let second as NimbusError {
                    throw (second.column ?? 0) >= (first.column ?? 0) ? second : first
                }
            }
            position = start
            argumentIndex = saved
        }
        return try comparison()
    }

    /// Whether the cursor is at something that continues an expression into a comparison.
    func comparisonOperatorAhead() -> Bool {
        if case let .symbol(s) = current.kind, ["==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "+", "-", "*", "/", "**", "."].contains(s) { return true }
        if let word = keyword(), ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "IN", "BETWEEN"].contains(word) { return true }
        return false
    }

    mutating func comparison() throws -> QueryPredicate {
        var modifier = QueryPredicate.Comparison.Modifier.direct
        var negated = false
        switch keyword() {
        case "ANY", "SOME": modifier = .any; advance()
        case "ALL": modifier = .all; advance()
        case "NONE": modifier = .any; negated = true; advance()
        default: break
        }
        let left = try expression()
        let operatorToken = current
        guard let op = try comparisonOperator() else {
            throw error("expected a comparison operator (==, <, BEGINSWITH, IN, …) after the expression, found \(describe(operatorToken))", at: operatorToken)
        }
        let options = try comparisonOptions()
        let right = try expression()
        if op == .between {
            let count: Int? = switch right {
            case let .aggregate(items): items.count
            default: nil
            }
            if let count, count != 2 {
                throw error("BETWEEN needs two bounds, as in {1, 10}", at: operatorToken)
            }
        }
        let comparison = QueryPredicate.comparison(.init(left, op, right, modifier: modifier, options: options))
        return negated ? .not(comparison) : comparison
    }

    mutating func comparisonOperator() throws -> QueryPredicate.Comparison.Operator? {
        if case let .symbol(s) = current.kind {
            let op: QueryPredicate.Comparison.Operator? = switch s {
            case "==", "=": .equal
            case "!=", "<>": .notEqual
            case "<": .lessThan
            case "<=", "=<": .lessThanOrEqual
            case ">": .greaterThan
            case ">=", "=>": .greaterThanOrEqual
            default: nil
            }
            if op != nil { advance() }
            return op
        }
        guard let word = keyword(), let op = QueryPredicate.Comparison.Operator(rawValue: word) else { return nil }
        advance()
        return op
    }

    /// `[c]`, `[d]`, `[cd]`, `[n]` after an operator.
    mutating func comparisonOptions() throws -> QueryPredicate.Comparison.Options {
        guard current.kind == .symbol("[") else { return [] }
        let open = current
        advance()
        guard case let .identifier(letters, false) = current.kind else {
            throw error("expected options such as [cd] after '['", at: open)
        }
        var options: QueryPredicate.Comparison.Options = []
        for letter in letters.lowercased() {
            switch letter {
            case "c": options.insert(.caseInsensitive)
            case "d": options.insert(.diacriticInsensitive)
            case "n": options.insert(.normalized)
            case "l": break   // locale-sensitive: accepted, strings compare as stored
            default: throw error("unknown comparison option '\(letter)'; use c, d or n")
            }
        }
        advance()
        try expect(symbol: "]", "after comparison options")
        return options
    }
}
