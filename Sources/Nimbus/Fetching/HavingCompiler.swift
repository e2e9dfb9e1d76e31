import GRDB

extension PredicateSQLCompiler {
    /// Compiles a `havingPredicate`: key paths that name a fetched property or expression
    /// refer to its result column; anything else compiles as an expression over the rows.
    mutating func havingCondition(_ predicate: QueryPredicate, aliases: [String: String]) throws -> String {
        switch predicate {
        case .truePredicate: return "1"
        case .falsePredicate: return "0"
        case let .and(parts): return "(" + (try parts.map { try havingCondition($0, aliases: aliases) }).joined(separator: " AND ") + ")"
        case let .or(parts): return "(" + (try parts.map { try havingCondition($0, aliases: aliases) }).joined(separator: " OR ") + ")"
        case let .not(part): return "NOT (" + (try havingCondition(part, aliases: aliases)) + ")"
        case let .comparison(comparison):
            let left = try havingOperand(comparison.left, aliases: aliases)
            let right = try havingOperand(comparison.right, aliases: aliases)
            let op: String
            switch comparison.op {
            case .equal: op = "IS"
            case .notEqual: op = "IS NOT"
            case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual: op = comparison.op.rawValue
            case .in: op = "IN"
            default:
                throw NimbusError(.invalidPredicate, "\(comparison.op.rawValue) is not supported in a having predicate")
            }
            return "(\(left) \(op) \(right))"
        }
    }

    private mutating func havingOperand(_ expression: QueryExpression, aliases: [String: String]) throws -> String {
        if case let .keyPath(components) = expression, components.count == 1, let column = aliases[components[0]] {
            return column
        }
        if case let .aggregate(items) = expression {
            return "(" + (try items.map { try havingOperand($0, aliases: aliases) }).joined(separator: ", ") + ")"
        }
        return try self.expression(expression).sql
    }
}
