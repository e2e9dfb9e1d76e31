/// The SQL a fetch request sends to a store, with SQLite's query plan for it: what
/// `nimbus store explain` prints and `NIMBUS_SQL_DEBUG=4` logs.
///
/// For example:
///
/// ```swift
/// var request = FetchRequest<ManagedObject>(entityName: "Photo")
/// request.predicate = try QueryPredicate(format: "latitude BETWEEN {40, 50}")
/// let explanation = try context.explain(request)
/// print(explanation.sql)        // SELECT … WHERE (t0.Z_PK IN (SELECT id FROM "Z_PHOTO_BYLOCATION" …
/// print(explanation.queryPlan)  // ["SEARCH t0 USING INTEGER PRIMARY KEY (rowid=?)", …]
/// ```
public struct FetchExplanation: Sendable, Hashable {
    /// The `SELECT` statement, with `?` placeholders.
    public var sql: String
    /// The values bound to the placeholders, in order, as SQL literals.
    public var arguments: [String]
    /// The `detail` column of `EXPLAIN QUERY PLAN`, one line per step, indented two
    /// spaces per level of nesting.
    public var queryPlan: [String]
    /// The store the statement was explained against.
    public var storeIdentifier: String
}
