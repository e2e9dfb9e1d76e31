/// An expression in a predicate or a fetch: the `NSExpression` of Nimbus.
///
/// For example, `tags.@count > 2` compares ``keyPath(_:)`` `tags.@count` with
/// ``constant(_:)`` `2`; `SUBQUERY(tags, $t, $t.name BEGINSWITH 'a')` is a `subquery`.
public indirect enum QueryExpression: Sendable, Hashable {
    /// A literal value (`3`, `'text'`, `nil`, `YES`, a date from `CAST`).
    case constant(PropertyValue)
    /// A key path from the evaluated object, `name`, `author.name`, `tags.@count`,
    /// `items.@sum.price`. Components are the dotted parts, operators included.
    case keyPath([String])
    /// `SELF`: the evaluated object.
    case evaluatedObject
    /// `$name`: a substitution or subquery variable.
    case variable(String)
    /// A key path from a variable: `$t.name` is `variableKeyPath("t", ["name"])`.
    case variableKeyPath(String, [String])
    /// A function: `count:`, `sum:`, `average:`, `min:`, `max:`, `lowercase:`,
    /// `uppercase:`, `now`, `add:to:`, `from:subtract:`, `multiply:by:`, `divide:by:`,
    /// `modulus:by:`, `abs:`, `sqrt:`, … The name is as `NSExpression` spells it.
    case function(String, [QueryExpression])
    /// A literal array `{1, 2, 3}`.
    case aggregate([QueryExpression])
    /// `SUBQUERY(collection, $variable, predicate)`.
    case subquery(collection: QueryExpression, variable: String, predicate: QueryPredicate)
    /// `TERNARY(predicate, a, b)`.
    case conditional(QueryPredicate, QueryExpression, QueryExpression)
}
