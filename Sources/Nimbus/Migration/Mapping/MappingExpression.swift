import Foundation

/// The value expression of a property mapping: what `NSPropertyMapping.valueExpression`
/// holds in a Core Data mapping model.
///
/// For example, Xcode's mapping editor writes `$source.title` for a copied attribute,
/// `FUNCTION($source.title, "uppercaseString")` for a computed one, `0` for a constant,
/// `FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:",
/// "NoteToNote", $source.notes)` for a relationship, and
/// `FUNCTION($entityPolicy, "priorityFor:", $source.pinned)` to call a custom policy:
///
/// ```swift
/// let title = try MappingExpression(format: "FUNCTION($source.title, 'uppercaseString')")
/// ```
public indirect enum MappingExpression: Sendable, Hashable, CustomStringConvertible {
    /// A constant value.
    case constant(PropertyValue)
    /// A key path from a variable: `$source.title` is `.keyPath(variable: "source", ["title"])`;
    /// `$source` alone has no components. Variables: `source`, `destination`, `manager`,
    /// `entityMapping`, `propertyMapping`, `entityPolicy`.
    case keyPath(variable: String, [String])
    /// `FUNCTION(receiver, "selector", arguments…)`: a method of the receiver (a string
    /// method such as `uppercaseString`, a manager or policy method), or an `NSExpression`
    /// function (`add:to:`, `uppercase:`, …) when the receiver is absent.
    case function(receiver: MappingExpression?, selector: String, arguments: [MappingExpression])
    /// Any other expression of the predicate language (arithmetic, `CAST`, …), evaluated
    /// with the variables substituted.
    case expression(QueryExpression)

    public var description: String {
        switch self {
        case let .constant(value): return PredicateFormatter.format(.constant(value))
        case let .keyPath(variable, components): return (["$" + variable] + components).joined(separator: ".")
        case let .function(receiver, selector, arguments):
            let parts = [receiver?.description ?? "SELF", "\"\(selector)\""] + arguments.map(\.description)
            return "FUNCTION(" + parts.joined(separator: ", ") + ")"
        case let .expression(expression): return PredicateFormatter.format(expression)
        }
    }

    /// Parses the text form (`NSExpression(format:)`): constants, `$variable.key.path`,
    /// `FUNCTION(receiver, "selector", arguments…)`, and the predicate language's arithmetic.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidPredicate`` for malformed text.
    public init(format: String) throws {
        var parser = MappingExpressionParser(tokens: try PredicateLexer.tokens(format), text: format)
        self = try parser.parse()
    }

    /// The source key paths the expression reads (`$source.a.b` gives `["a", "b"]`).
    var sourceKeyPaths: [[String]] {
        switch self {
        case .constant, .expression: []
        case let .keyPath(variable, components): variable == "source" ? [components] : []
        case let .function(receiver, _, arguments): (receiver?.sourceKeyPaths ?? []) + arguments.flatMap(\.sourceKeyPaths)
        }
    }
}

/// Parses mapping expressions: FUNCTION with any selector (which the predicate parser
/// refuses) and variable key paths; anything else goes to the predicate parser.
struct MappingExpressionParser {
    var tokens: [PredicateToken]
    let text: String
    var position = 0

    var current: PredicateToken { tokens[min(position, tokens.count - 1)] }

    mutating func parse() throws -> MappingExpression {
        let expression = try parseOne()
        guard current.kind == .end else { throw error("unexpected text after the expression") }
        return expression
    }

    func error(_ message: String) -> NimbusError {
        var error = NimbusError(.invalidPredicate, "\(message) at column \(current.column) of \"\(text)\"")
        error.column = current.column
        return error
    }

    /// The end of the expression starting at `position`: the next top-level comma or
    /// closing parenthesis.
    private func endOfOperand() -> Int {
        var depth = 0, index = position
        while index < tokens.count {
            switch tokens[index].kind {
            case .symbol("("), .symbol("{"), .symbol("["): depth += 1
            case .symbol(")"), .symbol("}"), .symbol("]"):
                if depth == 0 { return index }
                depth -= 1
            case .symbol(",") where depth == 0: return index
            case .end: return index
            default: break
            }
            index += 1
        }
        return index
    }

    mutating func parseOne() throws -> MappingExpression {
        let end = endOfOperand()
        if case let .identifier(word, false) = current.kind, word.uppercased() == "FUNCTION" {
            position += 1
            guard current.kind == .symbol("(") else { throw error("expected ( after FUNCTION") }
            position += 1
            let receiver = try parseOne()
            guard current.kind == .symbol(",") else { throw error("expected , after FUNCTION's receiver") }
            position += 1
            guard case let .string(selector) = current.kind else { throw error("expected a quoted selector") }
            position += 1
            var arguments: [MappingExpression] = []
            while current.kind == .symbol(",") {
                position += 1
                arguments.append(try parseOne())
            }
            guard current.kind == .symbol(")") else { throw error("expected ) to close FUNCTION") }
            position += 1
            let isSelf: Bool = if case .expression(.evaluatedObject) = receiver { true } else { false }
            guard position == end || current.kind == .end || current.kind == .symbol(",") || current.kind == .symbol(")") else {
                throw error("FUNCTION(...) cannot be combined with other operators here; compute it in a custom policy")
            }
            return .function(receiver: isSelf ? nil : receiver, selector: selector, arguments: arguments)
        }
        // A variable key path alone: `$source.a.b`.
        if case let .variable(name) = current.kind {
            var components: [String] = []
            var index = position + 1
            while index + 1 < end, tokens[index].kind == .symbol("."), case let .identifier(key, _) = tokens[index + 1].kind {
                components.append(key)
                index += 2
            }
            if index == end {
                position = end
                return .keyPath(variable: name, components)
            }
        }
        // Anything else: the predicate language's expression over the same tokens.
        let slice = Array(tokens[position..<end]) + [PredicateToken(kind: .end, column: tokens[end < tokens.count ? end : tokens.count - 1].column)]
        var parser = try PredicateParser(format: "", arguments: [])
        parser.tokens = slice
        let expression = try parser.parseExpression()
        position = end
        if case let .constant(value) = expression { return .constant(value) }
        return .expression(expression)
    }
}
