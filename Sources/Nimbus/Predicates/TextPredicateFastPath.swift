import Foundation
import GRDB

extension PredicateSQLCompiler {
    /// A string comparison of an attribute with a constant under `[c]`, `[d]` or `[cd]` (or
    /// any `LIKE`) as one call of ``TextFunctions`` instead of `NIMBUS_FOLD` and a SQL
    /// operator: the same answer, with no string made per row for ASCII text
    /// (docs/decisions/0022). Nil when the comparison is not of that shape.
    mutating func textFastPath(_ operation: TextFunctions.Operation, _ text: Operand, _ needle: Operand,
                               _ options: QueryPredicate.Comparison.Options) -> SQL? {
        let bits = PredicateSemantics.foldBits(options)
        guard bits != 0 || operation == .like, case let .constant(.string(raw)) = needle,
              case let .scalar(scalar) = text, scalar.kind == .string else { return nil }
        let folded = PredicateSemantics.fold(raw, options)
        if operation == .like, let (simpler, literal) = Self.simpleLike(folded) {
            // `*x*`, `x*`, `*x`: the same answer as a substring, prefix or suffix test.
            return "\(TextFunctions.name)(" + scalar.sql + ", " + bind(literal.databaseValue) + ", \(TextFunctions.code(simpler, foldBits: bits)))"
        }
        // An empty needle matches nothing (but an empty LIKE pattern or `==` matches "").
        if folded.isEmpty, operation != .like, operation != .equal { return SQL("0") }
        return "\(TextFunctions.name)(" + scalar.sql + ", " + bind(folded.databaseValue) + ", \(TextFunctions.code(operation, foldBits: bits)))"
    }

    /// `==[c]` and `!=[c]` (and `[d]`, `[cd]`) of an attribute and a constant string, with
    /// `IS`'s meaning (nil equals only nil).
    mutating func textEqualityFastPath(_ left: Operand, _ right: Operand, negated: Bool,
                                       _ options: QueryPredicate.Comparison.Options) -> SQL? {
        let call: SQL? = if case .constant = right {
            textFastPath(.equal, left, right, options)
        } else {
            textFastPath(.equal, right, left, options)
        }
        guard let call else { return nil }
        return negated ? "IFNULL(NOT " + call + ", 1)" : "IFNULL(" + call + ", 0)"
    }
}

extension PredicateSQLCompiler {
    /// A `LIKE` pattern that is a non-empty literal with a `*` at one or both ends (no `?`,
    /// no `\\`, no other `*`), as the test it amounts to and the literal.
    static func simpleLike(_ pattern: String) -> (TextFunctions.Operation, String)? {
        let leading = pattern.hasPrefix("*"), trailing = pattern.hasSuffix("*") && pattern.count > 1
        guard leading || trailing else { return nil }
        let literal = String(pattern.dropFirst(leading ? 1 : 0).dropLast(trailing ? 1 : 0))
        guard !literal.isEmpty, !literal.contains(where: { $0 == "*" || $0 == "?" || $0 == "\\" }) else { return nil }
        return (leading && trailing ? .contains : leading ? .endsWith : .beginsWith, literal)
    }
}

extension TextFunctions.Operation {
    /// The fast-path operation of a predicate operator (nil for `MATCHES` and the others).
    init?(_ op: QueryPredicate.Comparison.Operator) {
        switch op {
        case .contains: self = .contains
        case .beginsWith: self = .beginsWith
        case .endsWith: self = .endsWith
        case .like: self = .like
        default: return nil
        }
    }
}
