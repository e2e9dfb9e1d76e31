import Foundation
import GRDB
import GRDBSQLite

extension SQLiteDatabase {
    /// Keys per statement when many sources' destinations are read at once (inlined
    /// integers: about 7 bytes each, far below SQLite's statement length limit).
    static let sourceKeysPerStatement = 50_000

    /// Reads the destinations of one to-many relationship for many sources of one entity
    /// hierarchy, with the destinations' rows, in one statement per
    /// ``sourceKeysPerStatement`` sources.
    ///
    /// `sourceKeys` must be ascending. Calls `body` once per (source, destination) pair, in
    /// ascending order of source keys: rows of one source come together,
    /// in the order a single source's ``destinations(of:relationshipIndex:_:)`` gives them.
    /// `snapshot` decodes the destination's row, only while `body` runs (a destination
    /// already loaded in the caller's context needs no decoding: many-to-many members recur).
    /// Returns false (and reads nothing) when the relationship is not stored in a way this
    /// reads (transient).
    func forEachDestination(of sourceKeys: [Int64], entity: EntityDescription, relationshipIndex index: Int, _ db: Database,
                            _ body: (_ source: Int64, _ id: ManagedObjectID, _ snapshot: () throws(NimbusError) -> RowSnapshot) throws -> Void) throws -> Bool {
        let relationship = entity.properties[index].relationship!
        guard let destination = entity.destination(of: relationship) else { return false }
        let reader = reader(for: destination)
        let table = reader.table.quotedDatabaseIdentifier
        // The source key is read after the reader's columns.
        let sourceColumn = reader.columnPositions.count
        let head: String, order: String
        switch schema.mapping(for: entity).storage[index] {
        case let .inverseForeignKey(_, column, _, orderColumn):
            let key = "t0.\(column.quotedDatabaseIdentifier)"
            head = "SELECT \(reader.selectList), \(key) FROM \(table) t0 WHERE "
                + (reader.entityCondition(includesSubentities: true).map { $0 + " AND " } ?? "") + "\(key) IN "
            order = " ORDER BY \(key), " + (orderColumn.map { "t0.\($0.quotedDatabaseIdentifier), " } ?? "") + "t0.Z_PK"
        case let .joinTable(join, sourceName, destinationName, orderColumn):
            let key = "j.\(sourceName.quotedDatabaseIdentifier)"
            head = "SELECT \(reader.selectList), \(key) FROM \(join.name.quotedDatabaseIdentifier) j JOIN \(table) t0 "
                + "ON t0.Z_PK = j.\(destinationName.quotedDatabaseIdentifier) WHERE \(key) IN "
            order = " ORDER BY \(key), " + (orderColumn.map { "j.\($0.quotedDatabaseIdentifier), " } ?? "") + "t0.Z_PK"
        default:
            return false
        }
        let keys = sourceKeys
        assert(zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 }, "source keys must be ascending")
        var decoder = RowDecoder(reader: reader, storeKey: storeKey, model: model)
        for start in stride(from: 0, to: keys.count, by: Self.sourceKeysPerStatement) {
            let chunk = keys[start..<min(start + Self.sourceKeysPerStatement, keys.count)]
            var list = "("
            list.reserveCapacity(chunk.count * 8 + 2)
            for (i, key) in chunk.enumerated() {
                if i > 0 { list += "," }
                list += String(key)
            }
            let sql = head + list + ")" + order
            let started = ContinuousClock.now
            var rows = 0
            try db.makeStatement(sql: sql).forEachRow { row in
                let primaryKey = sqlite3_column_int64(row, 0)
                let id = try decoder.id(row, primaryKey: primaryKey)
                rows += 1
                try body(sqlite3_column_int64(row, Int32(sourceColumn)), id) { () throws(NimbusError) in try decoder.snapshot(row, primaryKey: primaryKey) }
            }
            SQLDebug.logFetch(sql: head + "(\(chunk.count) keys)" + order, arguments: StatementArguments(), rows: rows, started: started, db: db)
        }
        return true
    }
}
