import Foundation
import GRDB
import GRDBSQLite

extension SQLiteDatabase {
    /// Reads matching rows and hands each to `body` as soon as it is read, so a caller that
    /// turns rows into objects touches each row's memory once, while it is still in cache.
    func forEachSnapshot(_ query: SelectQuery, _ db: Database, _ body: (consuming ManagedObjectID, consuming RowSnapshot) throws -> Void) throws {
        let reader = reader(for: query.entity)
        let sql = "SELECT \(reader.selectList) " + query.fromClause(reader: reader) + query.tail
        let started = ContinuousClock.now
        let statement = try db.cachedStatement(sql: sql)
        let arguments = StatementArguments(query.arguments)
        var rows = 0
        var decoder = RowDecoder(reader: reader, storeKey: storeKey, model: model)
        try statement.forEachRow(arguments: arguments) { row in
            let (id, snapshot) = try decoder.read(row, primaryKey: sqlite3_column_int64(row, 0))
            rows += 1
            try body(id, snapshot)
        }
        SQLDebug.logFetch(sql: sql, arguments: arguments, rows: rows, started: started, db: db)
    }

    /// Rows as IDs only.
    func fetchIDs(_ query: SelectQuery, _ db: Database) throws -> [ManagedObjectID] {
        let reader = reader(for: query.entity)
        let sql = "SELECT t0.Z_PK, t0.Z_ENT " + query.fromClause(reader: reader) + query.tail
        let started = ContinuousClock.now
        let arguments = StatementArguments(query.arguments)
        let cursor = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        var result: [ManagedObjectID] = []
        while let row = try cursor.next() {
            result.append(try objectID(ofRow: row, reader: reader))
        }
        SQLDebug.logFetch(sql: sql, arguments: arguments, rows: result.count, started: started, db: db)
        return result
    }

    /// The ID of a row whose columns 0 and 1 are `Z_PK` and `Z_ENT`.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/corruptStore`` when `Z_ENT` is NULL, not an
    ///   integer, or no entity stored in the reader's table.
    func objectID(ofRow row: Row, reader: EntityReader) throws -> ManagedObjectID {
        let primaryKey: Int64 = row[0]
        let stored: DatabaseValue = row[1]
        guard let number = Int64.fromDatabaseValue(stored), let entityNumber = Int(exactly: number),
              reader.plan(forEntityNumber: entityNumber) != nil, let entity = model.entity(number: entityNumber) else {
            let known = reader.entity.rootEntity.entityNumbersInHierarchy.map(String.init).joined(separator: ", ")
            throw NimbusError(.corruptStore, "the row Z_PK = \(primaryKey) of \(reader.table) has Z_ENT = \(stored), which is no entity "
                + "stored in that table (expected one of \(known)); the store was changed outside Nimbus: fix or delete the row")
        }
        return ManagedObjectID(entity: entity, storeKey: storeKey, primaryKey: primaryKey)
    }

    /// The number of matching rows (limit and offset applied).
    func count(_ query: SelectQuery, _ db: Database) throws -> Int {
        let reader = reader(for: query.entity)
        var inner = query
        inner.orderBy = nil
        let sql: String
        if query.limit != nil || query.offset != nil {
            sql = "SELECT count(*) FROM (SELECT t0.Z_PK " + inner.fromClause(reader: reader) + inner.tail + ")"
        } else {
            sql = "SELECT count(*) " + inner.fromClause(reader: reader)
        }
        return try Int.fetchOne(db.cachedStatement(sql: sql), arguments: StatementArguments(query.arguments)) ?? 0
    }

    /// Rows as lists of selected expressions (for dictionary results).
    func fetchRows(_ query: SelectQuery, select: [String], groupBy: [String], having: String?, havingArguments: [DatabaseValue],
                   distinct: Bool, _ db: Database) throws -> [Row] {
        let reader = reader(for: query.entity)
        var sql = "SELECT " + (distinct ? "DISTINCT " : "") + select.joined(separator: ", ") + " " + query.fromClause(reader: reader)
        if !groupBy.isEmpty { sql += " GROUP BY " + groupBy.joined(separator: ", ") }
        if let having { sql += " HAVING " + having }
        sql += query.tail
        let arguments = StatementArguments(query.arguments + havingArguments)
        let started = ContinuousClock.now
        let rows = try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments)
        SQLDebug.logFetch(sql: sql, arguments: arguments, rows: rows.count, started: started, db: db)
        return rows
    }

    /// One row's snapshot, or nil when the row does not exist.
    func snapshot(for id: ManagedObjectID, _ db: Database) throws -> RowSnapshot? {
        let reader = reader(for: id.entity.rootEntity)
        let statement = try db.cachedStatement(sql: reader.selectByKeySQL)
        let cursor = try Int64.fetchCursor(statement, arguments: [id.primaryKey])
        guard let primaryKey = try cursor.next() else { return nil }
        var decoder = RowDecoder(reader: reader, storeKey: storeKey, model: model)
        return try decoder.read(statement.sqliteStatement, primaryKey: primaryKey).1
    }

    /// Snapshots of many rows of one hierarchy, by primary key.
    func snapshots(for ids: [ManagedObjectID], _ db: Database) throws -> [ManagedObjectID: RowSnapshot] {
        guard let first = ids.first else { return [:] }
        let reader = reader(for: first.entity.rootEntity)
        var result: [ManagedObjectID: RowSnapshot] = [:]
        for chunk in stride(from: 0, to: ids.count, by: 500) {
            let keys = ids[chunk..<min(chunk + 500, ids.count)].map(\.primaryKey)
            let sql = "SELECT \(reader.selectList) FROM \(reader.table.quotedDatabaseIdentifier) t0 WHERE t0.Z_PK IN (\(keys.map(String.init).joined(separator: ",")))"
            let statement = try db.makeStatement(sql: sql)
            let cursor = try Row.fetchCursor(statement)
            while try cursor.next() != nil {
                let (id, snapshot) = try reader.read(statement: statement.sqliteStatement, storeKey: storeKey, model: model)
                result[id] = snapshot
            }
        }
        return result
    }

    /// The destinations of a to-many relationship of one object.
    func destinations(of id: ManagedObjectID, relationshipIndex index: Int, _ db: Database) throws -> [ManagedObjectID] {
        let entity = id.entity
        let relationship = entity.properties[index].relationship!
        guard let destination = entity.destination(of: relationship) else { return [] }
        let destinationReader = reader(for: destination)
        switch schema.mapping(for: entity).storage[index] {
        case let .inverseForeignKey(table, column, _, orderColumn):
            var sql = "SELECT t0.Z_PK, t0.Z_ENT FROM \(table.quotedDatabaseIdentifier) t0 WHERE t0.\(column.quotedDatabaseIdentifier) = ?"
            if let c = destinationReader.entityCondition(includesSubentities: true) { sql += " AND " + c }
            sql += " ORDER BY " + (orderColumn.map { "t0.\($0.quotedDatabaseIdentifier), " } ?? "") + "t0.Z_PK"
            return try ids(sql: sql, arguments: [id.primaryKey], reader: destinationReader, db)
        case let .joinTable(join, sourceColumn, destinationColumn, orderColumn):
            let sql = "SELECT t0.Z_PK, t0.Z_ENT FROM \(join.name.quotedDatabaseIdentifier) j JOIN \(destinationReader.table.quotedDatabaseIdentifier) t0 ON t0.Z_PK = j.\(destinationColumn.quotedDatabaseIdentifier) WHERE j.\(sourceColumn.quotedDatabaseIdentifier) = ? ORDER BY "
                + (orderColumn.map { "j.\($0), " } ?? "") + "t0.Z_PK"
            return try ids(sql: sql, arguments: [id.primaryKey], reader: destinationReader, db)
        default:
            return []
        }
    }

    private func ids(sql: String, arguments: StatementArguments, reader: EntityReader, _ db: Database) throws -> [ManagedObjectID] {
        let cursor = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        var result: [ManagedObjectID] = []
        while let row = try cursor.next() {
            result.append(try objectID(ofRow: row, reader: reader))
        }
        return result
    }
}
