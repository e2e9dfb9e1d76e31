import Foundation
import GRDB

extension PredicateSQLCompiler {
    /// Range bounds on one attribute, gathered from a predicate's top-level conjuncts.
    struct RangeBounds: Equatable {
        var lower: Double?
        var upper: Double?

        mutating func raise(_ value: Double) { lower = max(lower ?? -.infinity, value) }
        mutating func lower(_ value: Double) { upper = min(upper ?? .infinity, value) }
    }

    /// A condition that narrows the rows through an R-tree fetch index, ANDed before the
    /// predicate's own SQL: `t0.Z_PK IN (SELECT id FROM "Z_PHOTO_BYLOCATION" WHERE
    /// "ZLATITUDE_MAX" >= ? AND "ZLATITUDE_MIN" <= ? …)`. Nil when no R-tree applies.
    ///
    /// Only comparisons every result must satisfy are used (conjuncts of the top level):
    /// `attr > c`, `>=`, `<`, `<=`, `==`, `BETWEEN {a, b}` against numeric or date constants.
    /// An R-tree keeps 32-bit floats rounded outwards, so it returns a superset of the rows
    /// and the predicate, kept whole, decides exactly.
    func rTreeCondition(_ predicate: QueryPredicate) -> SQL? {
        guard usesRTrees, variables.isEmpty else { return nil }
        let rTrees = schema.rTrees(for: entity).filter { !unavailableRTrees.contains($0.name) }
        guard !rTrees.isEmpty else { return nil }
        var bounds: [String: RangeBounds] = [:]
        for conjunct in Self.conjuncts(of: predicate) {
            guard case var .comparison(c) = conjunct, c.modifier == .direct, c.options.isEmpty else { continue }
            // An `indexed:by:` hint names the index to use; the R-tree is chosen below all the same.
            c.left = Self.unhinted(c.left)
            c.right = Self.unhinted(c.right)
            if case let .keyPath(path) = c.left, path.count == 1 {
                let name = path[0]
                if c.op == .between, case let .aggregate(items) = c.right, items.count == 2,
                   case let .constant(a) = items[0], case let .constant(b) = items[1],
                   let low = Self.number(a), let high = Self.number(b) {
                    bounds[name, default: RangeBounds()].raise(low)
                    bounds[name, default: RangeBounds()].lower(high)
                } else if case let .constant(value) = c.right {
                    Self.apply(c.op, Self.number(value), to: &bounds[name, default: RangeBounds()])
                }
            } else if case let .keyPath(path) = c.right, path.count == 1, case let .constant(value) = c.left {
                Self.apply(Self.flipped(c.op), Self.number(value), to: &bounds[path[0], default: RangeBounds()])
            }
        }
        // The R-tree that bounds the most dimensions (the first declared on a tie).
        var best: (rTree: StoreSchema.RTree, count: Int)?
        for rTree in rTrees {
            let count = rTree.dimensions.filter { bounds[$0.attribute].map { $0.lower != nil || $0.upper != nil } ?? false }.count
            if count > 0, count > (best?.count ?? 0) { best = (rTree, count) }
        }
        guard let rTree = best?.rTree else { return nil }
        var terms: [SQL] = []
        for dimension in rTree.dimensions {
            guard let range = bounds[dimension.attribute] else { continue }
            if let lower = range.lower { terms.append(SQL("\(dimension.maxColumn.quotedDatabaseIdentifier) >= ", []) + bind(lower.databaseValue)) }
            if let upper = range.upper { terms.append(SQL("\(dimension.minColumn.quotedDatabaseIdentifier) <= ", []) + bind(upper.databaseValue)) }
        }
        return "\(mainAlias).Z_PK IN (SELECT id FROM \(rTree.name.quotedDatabaseIdentifier) WHERE " + SQL.joined(terms, " AND ") + ")"
    }

    /// An expression without its `indexed:by:` hint.
    static func unhinted(_ expression: QueryExpression) -> QueryExpression {
        if case let .function("indexed:by:", arguments) = expression, arguments.count == 2 { return arguments[0] }
        return expression
    }

    /// The parts every match satisfies: the predicate, or the parts of (nested) `AND`s.
    static func conjuncts(of predicate: QueryPredicate) -> [QueryPredicate] {
        if case let .and(parts) = predicate { return parts.flatMap(conjuncts) }
        return [predicate]
    }

    private static func apply(_ op: QueryPredicate.Comparison.Operator?, _ value: Double?, to range: inout RangeBounds) {
        guard let op, let value else { return }
        switch op {
        case .greaterThan, .greaterThanOrEqual: range.raise(value)
        case .lessThan, .lessThanOrEqual: range.lower(value)
        case .equal: range.raise(value); range.lower(value)
        default: break
        }
    }

    private static func flipped(_ op: QueryPredicate.Comparison.Operator) -> QueryPredicate.Comparison.Operator? {
        switch op {
        case .lessThan: .greaterThan
        case .lessThanOrEqual: .greaterThanOrEqual
        case .greaterThan: .lessThan
        case .greaterThanOrEqual: .lessThanOrEqual
        case .equal: .equal
        default: nil
        }
    }

    /// A constant as the number an R-tree compares (dates as seconds since 2001).
    private static func number(_ value: PropertyValue) -> Double? {
        switch value {
        case let .integer(v): Double(v)
        case let .double(v): v.isNaN ? nil : v
        case let .decimal(v): NSDecimalNumber(decimal: v).doubleValue
        case let .date(v): v.timeIntervalSinceReferenceDate
        default: nil
        }
    }

    /// Compiles a predicate with constants inlined as literals, for SQL that takes no
    /// arguments (a partial index's `WHERE` clause). Never routes through R-trees.
    mutating func inlinedCondition(_ predicate: QueryPredicate) throws -> String {
        inlinesConstants = true
        allowsGroupAggregates = false
        defer { inlinesConstants = false }
        return try compile(predicate).text
    }
}
