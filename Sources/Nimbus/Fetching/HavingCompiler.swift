import GRDB

extension PredicateSQLCompiler {
    /// Compiles a `havingPredicate`: key paths that name a fetched property or expression
    /// refer to its result column; anything else compiles as over the rows, with the whole
    /// predicate grammar and the semantics of ``condition(_:)``. Aggregates such as
    /// `count:(name)` are SQL aggregates over each group. Constants are appended to
    /// ``arguments``.
    mutating func havingCondition(_ predicate: QueryPredicate, aliases: [String: String]) throws -> String {
        resultAliases = aliases
        defer { resultAliases = [:] }
        inlinesConstants = false
        allowsGroupAggregates = true
        defer { allowsGroupAggregates = false }
        let sql = try compile(predicate)
        arguments += sql.arguments
        return sql.text
    }
}
