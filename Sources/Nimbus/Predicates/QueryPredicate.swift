/// A predicate: the `NSPredicate` of Nimbus, parsed from Core Data's format syntax.
///
/// Every predicate compiles to SQL for a store and evaluates in memory (for unsaved
/// objects and results controllers), with one meaning in both engines. For example:
///
/// ```swift
/// let adults = try QueryPredicate(format: "age >= %@ AND name BEGINSWITH[cd] %@", 18, "a")
/// request.predicate = adults
/// ```
///
/// Named `QueryPredicate` so that it never clashes with Foundation's `Predicate`.
public indirect enum QueryPredicate: Sendable, Hashable {
    /// `TRUEPREDICATE`.
    case truePredicate
    /// `FALSEPREDICATE`.
    case falsePredicate
    /// `a AND b AND …`.
    case and([QueryPredicate])
    /// `a OR b OR …`.
    case or([QueryPredicate])
    /// `NOT a`.
    case not(QueryPredicate)
    /// `left op right`, optionally with `ANY`/`ALL`/`NONE` and `[cd]` options.
    case comparison(Comparison)
}

extension QueryPredicate {
    /// A comparison between two expressions.
    public struct Comparison: Sendable, Hashable {
        /// The comparison operator.
        public enum Operator: String, Sendable, Hashable, CaseIterable {
            case lessThan = "<"
            case lessThanOrEqual = "<="
            case greaterThan = ">"
            case greaterThanOrEqual = ">="
            case equal = "=="
            case notEqual = "!="
            case matches = "MATCHES"
            case like = "LIKE"
            case beginsWith = "BEGINSWITH"
            case endsWith = "ENDSWITH"
            case `in` = "IN"
            case contains = "CONTAINS"
            case between = "BETWEEN"
        }

        /// How a to-many left-hand side is compared.
        public enum Modifier: String, Sendable, Hashable {
            /// Compare the value itself.
            case direct
            /// `ANY` (also `SOME`): at least one element matches.
            case any = "ANY"
            /// `ALL`: every element matches.
            case all = "ALL"
        }

        /// String comparison options: `[c]`, `[d]`, `[cd]`, `[n]`.
        public struct Options: OptionSet, Sendable, Hashable {
            public let rawValue: Int
            public init(rawValue: Int) { self.rawValue = rawValue }
            /// `[c]`: case-insensitive.
            public static let caseInsensitive = Options(rawValue: 1)
            /// `[d]`: diacritic-insensitive.
            public static let diacriticInsensitive = Options(rawValue: 2)
            /// `[n]`: normalized (accepted; strings are compared as stored).
            public static let normalized = Options(rawValue: 4)
        }

        public var left: QueryExpression
        public var op: Operator
        public var right: QueryExpression
        public var modifier: Modifier
        public var options: Options

        /// Creates a comparison.
        public init(_ left: QueryExpression, _ op: Operator, _ right: QueryExpression,
                    modifier: Modifier = .direct, options: Options = []) {
            self.left = left
            self.op = op
            self.right = right
            self.modifier = modifier
            self.options = options
        }
    }
}
