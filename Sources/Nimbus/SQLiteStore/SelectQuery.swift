import GRDB

/// A compiled fetch: the rows of an entity matching a condition, in an order, sliced.
/// The entity's table is aliased `t0`; joins add `t1`, `t2`, ….
struct SelectQuery: Sendable {
    var entity: EntityDescription
    var includesSubentities = true
    /// A SQL condition over `t0` and the joins, or nil for every row.
    var condition: String?
    var arguments: [DatabaseValue] = []
    /// `LEFT JOIN …` clauses the condition and order need.
    var joins: [String] = []
    /// The `ORDER BY` list, or nil.
    var orderBy: String?
    var limit: Int?
    var offset: Int?

    /// `FROM … WHERE …` shared by every kind of select.
    func fromClause(reader: EntityReader) -> String {
        var sql = "FROM \(reader.table.quotedDatabaseIdentifier) t0"
        for join in joins { sql += " " + join }
        return sql + whereClause(reader: reader)
    }

    /// ` WHERE …` over `t0` (the entity's rows and the condition), or empty.
    func whereClause(reader: EntityReader) -> String {
        var conditions: [String] = []
        if let c = reader.entityCondition(includesSubentities: includesSubentities) { conditions.append(c) }
        if let condition { conditions.append("(\(condition))") }
        return conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    }

    /// `ORDER BY … LIMIT … OFFSET …`.
    var tail: String {
        var sql = ""
        if let orderBy { sql += " ORDER BY " + orderBy }
        if let limit { sql += " LIMIT \(limit)" } else if offset != nil { sql += " LIMIT -1" }
        if let offset { sql += " OFFSET \(offset)" }
        return sql
    }
}
