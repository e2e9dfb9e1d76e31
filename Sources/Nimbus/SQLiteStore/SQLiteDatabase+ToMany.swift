import Foundation
import GRDB
import GRDBSQLite

extension SQLiteDatabase {
    /// Keys per statement when many sources' destinations are read at once (inlined
    /// integers: about 7 bytes each, far below SQLite's statement length limit).
    static let sourceKeysPerStatement = 50_000
    /// Sources are read by ranges of keys when the ranges average at least this many of
    /// them (a statement per range costs about as much as this many keys of an IN list).
    static let keysPerRangeStatement = 8
    /// Keys a range may skip between two sources' keys (their rows are read and passed over).
    static let keysSkippedInRange: Int64 = 3

    /// Ascending keys as ranges that each hold keys no more than ``keysSkippedInRange`` apart.
    static func keyRanges(_ keys: [Int64]) -> [ClosedRange<Int64>] {
        var ranges: [ClosedRange<Int64>] = []
        var index = keys.startIndex
        while index < keys.endIndex {
            let first = keys[index]
            var last = first
            index += 1
            while index < keys.endIndex, keys[index] - last <= keysSkippedInRange + 1 {
                last = keys[index]
                index += 1
            }
            ranges.append(first...last)
        }
        return ranges
    }

    /// Reads the destinations of one to-many relationship for many sources of one entity
    /// hierarchy, with the destinations' rows: one statement per range of nearly consecutive
    /// source keys when they are mostly so (``keyRanges(_:)``), else one per
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
                + (reader.entityCondition(includesSubentities: true).map { $0 + " AND " } ?? "") + key
            // The foreign key's index holds each key's rows in Z_PK order: no sorting.
            order = " ORDER BY \(key), " + (orderColumn.map { "t0.\($0.quotedDatabaseIdentifier), " } ?? "") + "t0.Z_PK"
        case let .joinTable(join, sourceName, destinationName, orderColumn):
            let key = "j.\(sourceName.quotedDatabaseIdentifier)"
            head = "SELECT \(reader.selectList), \(key) FROM \(join.name.quotedDatabaseIdentifier) j JOIN \(table) t0 "
                + "ON t0.Z_PK = j.\(destinationName.quotedDatabaseIdentifier) WHERE \(key)"
            // The destination column, equal to t0.Z_PK: the join table's key (or index) holds
            // each source's rows in that order, so SQLite does not sort them as it would by t0.Z_PK.
            order = " ORDER BY \(key), " + (orderColumn.map { "j.\($0.quotedDatabaseIdentifier), " } ?? "")
                + "j.\(destinationName.quotedDatabaseIdentifier)"
        default:
            return false
        }
        assert(zip(sourceKeys, sourceKeys.dropFirst()).allSatisfy { $0 < $1 }, "source keys must be ascending")
        var decoder = RowDecoder(reader: reader, storeKey: storeKey, model: model)
        // Rows come in ascending order of source keys, statement after statement: the next
        // source key not passed yet tells a requested source's rows from a skipped one's.
        var next = sourceKeys.startIndex
        func read(_ statement: Statement, arguments: StatementArguments = StatementArguments(), logged sql: @autoclosure () -> String) throws {
            let started = ContinuousClock.now
            var rows = 0
            try statement.forEachRow(arguments: arguments) { row in
                let source = sqlite3_column_int64(row, Int32(sourceColumn))
                while next < sourceKeys.endIndex, sourceKeys[next] < source { next += 1 }
                guard next < sourceKeys.endIndex, sourceKeys[next] == source else { return }
                let primaryKey = sqlite3_column_int64(row, 0)
                let id = try decoder.id(row, primaryKey: primaryKey)
                rows += 1
                try body(source, id) { () throws(NimbusError) in try decoder.snapshot(row, primaryKey: primaryKey) }
            }
            SQLDebug.logFetch(sql: sql(), arguments: arguments, rows: rows, started: started, db: db)
        }
        let ranges = Self.keyRanges(sourceKeys)
        if ranges.count * Self.keysPerRangeStatement <= sourceKeys.count {
            // Mostly consecutive keys (all or most objects of an entity): one cached statement
            // per range reads the index in order. A long IN list costs more: SQLite parses it
            // and builds a temporary index of its keys before reading.
            let statement = try db.cachedStatement(sql: head + " BETWEEN ? AND ?" + order)
            for range in ranges {
                try read(statement, arguments: [range.lowerBound, range.upperBound], logged: statement.sql)
            }
            return true
        }
        for start in stride(from: 0, to: sourceKeys.count, by: Self.sourceKeysPerStatement) {
            let chunk = sourceKeys[start..<min(start + Self.sourceKeysPerStatement, sourceKeys.count)]
            var list = " IN ("
            list.reserveCapacity(chunk.count * 8 + 5)
            for (i, key) in chunk.enumerated() {
                if i > 0 { list += "," }
                list += String(key)
            }
            try read(db.makeStatement(sql: head + list + ")" + order), logged: head + " IN (\(chunk.count) keys)" + order)
        }
        return true
    }
}
