import GRDB

extension ManagedObjectContext {
    /// The SQL a fetch request runs in each store of its entity, and SQLite's query plan
    /// for it, without fetching anything. Use it to check that a predicate goes through a
    /// fetch index (an R-tree shows as `VIRTUAL TABLE INDEX`).
    ///
    /// For example:
    ///
    /// ```swift
    /// let plan = try context.explain(request).flatMap(\.queryPlan)
    /// ```
    ///
    /// - Parameter request: a fetch request; its predicate, sort descriptors, limit and
    ///   offset shape the statement.
    /// - Returns: one explanation per store holding the entity.
    /// - Throws: ``NimbusError/Code-swift.struct/unknownEntity``, and the errors of
    ///   compiling the predicate (``NimbusError/Code-swift.struct/invalidPredicate``, …).
    public func explain<Result>(_ request: FetchRequest<Result>) throws -> [FetchExplanation] {
        let entity = try entity(named: request.entityName)
        let query = try selectQuery(request, entity: entity, sliced: true)
        return try persistentStoreCoordinator.stores(for: entity).map { store in
            try store.database.read { db in try store.database.explain(query, db) }
        }
    }
}

extension SQLiteDatabase {
    /// The statement ``forEachSnapshot(_:_:_:)`` would run, and its query plan.
    func explain(_ query: SelectQuery, _ db: Database) throws -> FetchExplanation {
        let reader = reader(for: query.entity)
        let sql = "SELECT \(reader.selectList) " + query.fromClause(reader: reader) + query.tail
        let rows = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(query.arguments))
        var depth: [Int: Int] = [0: 0]
        let plan = rows.map { row -> String in
            let id: Int = row["id"], parent: Int = row["parent"]
            let level = (depth[parent] ?? 0) + 1
            depth[id] = level
            return String(repeating: "  ", count: level - 1) + (row["detail"] as String? ?? "")
        }
        return FetchExplanation(sql: sql, arguments: query.arguments.map(PredicateSQLCompiler.literal),
                                queryPlan: plan, storeIdentifier: identifier)
    }
}
