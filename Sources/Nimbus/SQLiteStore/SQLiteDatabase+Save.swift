import Foundation
import GRDB
import GRDBSQLite

extension SQLiteDatabase {
    /// Reserves primary keys for temporary IDs (a write of its own).
    func obtainPermanentIDs(for ids: [ManagedObjectID]) throws -> [ManagedObjectID] {
        try write { db in try allocateKeys(for: ids, db) }
    }

    /// Writes a save in one transaction: keys, rows, join rows, order; then the hooks
    /// (history, sync metadata) in the same transaction.
    func save(_ request: SaveRequest, hooks: [any SaveHook]) throws -> SaveResult {
        // Large values of external-storage attributes go to files first; files the save
        // replaces or deletes go once it commits (decision 0026).
        let (request, written) = try externalize(request)
        var obsolete: [String] = []
        defer { removeExternalFiles(obsolete) }
        do {
            return try write { db in
                obsolete = try obsoleteExternalFiles(of: request, db)
                return try writeRows(request, hooks: hooks, db)
            }
        } catch {
            obsolete = written
            throw error
        }
    }

    private func writeRows(_ request: SaveRequest, hooks: [any SaveHook], _ db: Database) throws -> SaveResult {
        do {
            var result = SaveResult()
            result.insertedIDs = try allocateKeys(for: request.inserts.map(\.id), db)
            if request.resolvesReferences {
                for (insert, id) in zip(request.inserts, result.insertedIDs) where insert.id.isTemporaryID {
                    result.permanentIDs[insert.id] = id
                }
            }
            let permanentIDs = result.permanentIDs
            let resolve: (ManagedObjectID) -> ManagedObjectID = { id in id.isTemporaryID ? permanentIDs[id] ?? id : id }

            // Deletions and updates before insertions: a unique key that one object gives up
            // (deleted, or changed) may be taken by a new object in the same save.
            for delete in request.deletes { try deleteRow(delete.id, db) }
            var conflicts: [ManagedObjectID] = []
            for update in request.updates {
                if try updateRow(update, resolve: resolve, db) {
                    result.versions[update.id] = update.expectedVersion + 1
                } else {
                    conflicts.append(update.id)
                }
            }
            guard conflicts.isEmpty else {
                var error = NimbusError(.mergeConflict, "the store changed since these objects were read: "
                    + conflicts.map(\.description).joined(separator: ", ") + "; refresh them and save again")
                error.conflictingObjectIDs = conflicts
                throw error
            }
            // One statement per entity for the whole save (looking it up by its SQL each
            // row would hash the SQL each row).
            var statements = [Statement?](repeating: nil, count: insertPlans.count)
            for (insert, id) in zip(request.inserts, result.insertedIDs) {
                let number = id.entity.entityNumber - 1
                let statement = try statements[number] ?? db.cachedStatement(sql: insertPlans[number].sql)
                statements[number] = statement
                try insertRow(id: id, values: insert.values, plan: insertPlans[number], statement: statement, resolve: resolve)
            }
            // Rows first, then inverse positions in them.
            for change in request.joinChanges where !change.setsInverseOrder { try writeJoin(change, resolve: resolve, db) }
            for change in request.joinChanges where change.setsInverseOrder { try writeJoin(change, resolve: resolve, db) }
            for change in request.orderChanges {
                try db.execute(sql: "UPDATE \(change.table.quotedDatabaseIdentifier) SET \(change.column.quotedDatabaseIdentifier) = ? WHERE Z_PK = ?",
                               arguments: [change.position, resolve(change.id).primaryKey])
            }
            for hook in hooks { try hook.didWrite(request, result: result, database: self, db) }
            return result
        }
    }

    /// Permanent IDs for `ids`, in the same order: temporary ones get new keys (one
    /// `Z_PRIMARYKEY` update per entity hierarchy), permanent ones are returned as they are.
    private func allocateKeys(for ids: [ManagedObjectID], _ db: Database) throws -> [ManagedObjectID] {
        // New keys per hierarchy, by root entity number.
        var counts: [Int: Int64] = [:]
        for id in ids where id.isTemporaryID { counts[id.entity.rootEntityNumber, default: 0] += 1 }
        guard !counts.isEmpty else { return ids }
        var next: [Int: Int64] = [:]
        for (root, count) in counts {
            if let first = keyReservations.take(Int(count), root: root) {
                if try reservedKeysAreFree(first...(first + count - 1), root: root, db) {
                    next[root] = first
                    continue
                }
                // The file was replaced under this connection (another coordinator's
                // replacePersistentStore, a restore): the block means nothing there.
                keyReservations.forget(root: root)
            }
            let extra = keyReservations.extraKeys(for: Int(count), root: root)
            // An update, then a read of the new maximum in the same transaction (`RETURNING`
            // would buffer its row in an ephemeral table: a B-tree opened and closed per save).
            try db.cachedStatement(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ?").execute(arguments: [count + extra, root])
            guard let maximum = try Int64.fetchOne(db.cachedStatement(sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?"), arguments: [root]) else {
                throw NimbusError(.corruptStore, "the store's Z_PRIMARYKEY has no row for entity number \(root) (\(model.entity(number: root)?.name ?? "unknown")); "
                    + "the file was changed outside Nimbus")
            }
            next[root] = maximum - count - extra + 1
            if extra > 0 { keyReservations.reserved(maximum - extra + 1...maximum, root: root, db) }
        }
        var result: [ManagedObjectID] = []
        result.reserveCapacity(ids.count)
        if next.count == 1, let (root, first) = next.first {
            // One hierarchy (the usual save): keys in order, no lookups.
            var key = first
            for id in ids {
                guard id.isTemporaryID else { result.append(id); continue }
                assert(id.entity.rootEntityNumber == root)
                result.append(ManagedObjectID(entity: id.entity, storeKey: storeKey, primaryKey: key))
                key += 1
            }
            return result
        }
        for id in ids {
            guard id.isTemporaryID else { result.append(id); continue }
            let root = id.entity.rootEntityNumber
            result.append(ManagedObjectID(entity: id.entity, storeKey: storeKey, primaryKey: next[root]!))
            next[root]! += 1
        }
        return result
    }

    /// Whether keys taken from a reserved block are still this store's to give: `Z_MAX`
    /// covers them and no row has them (both false only when the file's content was replaced
    /// since the block was reserved).
    ///
    /// Only another connection can replace the content, so while `PRAGMA data_version`
    /// (which this connection's own commits leave alone) is what it was at the last check,
    /// the keys are known to be free without reading them.
    private func reservedKeysAreFree(_ keys: ClosedRange<Int64>, root: Int, _ db: Database) throws -> Bool {
        let version = try db.int64Value(sql: "PRAGMA data_version") ?? 0
        if keyReservations.isUnchanged(since: version) { return true }
        guard let entity = model.entity(number: root) else { return false }
        let table = schema.mapping(for: entity).table.quotedDatabaseIdentifier
        let sql = "SELECT (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?) >= ? AND NOT EXISTS (SELECT 1 FROM \(table) WHERE Z_PK BETWEEN ? AND ?)"
        let free = try Bool.fetchOne(db.cachedStatement(sql: sql), arguments: [root, keys.upperBound, keys.lowerBound, keys.upperBound]) ?? false
        if free { keyReservations.checked(at: version) }
        return free
    }

    private func insertRow(id: ManagedObjectID, values: [PropertyValue], plan: InsertPlan, statement: Statement,
                           resolve: (ManagedObjectID) -> ManagedObjectID) throws {
        // Bind straight through SQLite's C API (the save's hottest loop), then let GRDB step
        // the statement so its execution hooks still run.
        statement.setUncheckedArguments(StatementArguments())
        let handle = statement.sqliteStatement
        var position: Int32 = 1
        try SQLiteBinding.bind(.integer(id.primaryKey), to: handle, at: &position)
        try SQLiteBinding.bind(.integer(Int64(id.entity.entityNumber)), to: handle, at: &position)
        try SQLiteBinding.bind(.integer(1), to: handle, at: &position)
        for item in plan.items {
            switch item {
            case let .value(index):
                try SQLiteBinding.bind(values[index], to: handle, at: &position)
            case let .foreignKey(index, hasEntityColumn):
                if case let .object(target) = values[index] {
                    let resolved = resolve(target)
                    try SQLiteBinding.bind(.integer(resolved.primaryKey), to: handle, at: &position)
                    if hasEntityColumn { try SQLiteBinding.bind(.integer(Int64(resolved.entity.entityNumber)), to: handle, at: &position) }
                } else {
                    try SQLiteBinding.bind(.null, to: handle, at: &position)
                    if hasEntityColumn { try SQLiteBinding.bind(.null, to: handle, at: &position) }
                }
            }
        }
        try statement.execute()
    }

    /// Returns false when the row's version is not the expected one (or the row is gone).
    private func updateRow(_ update: SaveRequest.Update, resolve: (ManagedObjectID) -> ManagedObjectID, _ db: Database) throws -> Bool {
        let mapping = schema.mapping(for: update.id.entity)
        var assignments = ["Z_OPT = Z_OPT + 1"]
        var arguments: [PropertyValue] = []
        for (index, value) in update.changes {
            switch mapping.storage[index] {
            case let .column(column):
                assignments.append("\(column.quotedDatabaseIdentifier) = ?")
                arguments.append(value)
            case let .foreignKey(column, entityColumn):
                assignments.append("\(column.quotedDatabaseIdentifier) = ?")
                if case let .object(target) = value {
                    let resolved = resolve(target)
                    arguments.append(.integer(resolved.primaryKey))
                    if let entityColumn {
                        assignments.append("\(entityColumn.quotedDatabaseIdentifier) = ?")
                        arguments.append(.integer(Int64(resolved.entity.entityNumber)))
                    }
                } else {
                    arguments.append(.null)
                    if let entityColumn { assignments.append("\(entityColumn.quotedDatabaseIdentifier) = NULL") }
                }
            default:
                continue
            }
        }
        arguments += [.integer(update.id.primaryKey), .integer(update.expectedVersion)]
        let sql = "UPDATE \(mapping.table.quotedDatabaseIdentifier) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ? AND Z_OPT = ?"
        // Bound through SQLite's C API with checked results (GRDB's binding traps on values of 2 GiB).
        let statement = try db.cachedStatement(sql: sql)
        statement.setUncheckedArguments(StatementArguments())
        var position: Int32 = 1
        for argument in arguments { try SQLiteBinding.bind(argument, to: statement.sqliteStatement, at: &position) }
        try statement.execute()
        return db.changesCount == 1
    }

    private func deleteRow(_ id: ManagedObjectID, _ db: Database) throws {
        let mapping = schema.mapping(for: id.entity)
        try db.cachedStatement(sql: "DELETE FROM \(mapping.table.quotedDatabaseIdentifier) WHERE Z_PK = ?").execute(arguments: [id.primaryKey])
        for storage in mapping.storage {
            if case let .joinTable(join, sourceColumn, _, _) = storage {
                try db.cachedStatement(sql: "DELETE FROM \(join.name.quotedDatabaseIdentifier) WHERE \(sourceColumn.quotedDatabaseIdentifier) = ?").execute(arguments: [id.primaryKey])
            }
        }
    }

    private func writeJoin(_ change: SaveRequest.JoinChange, resolve: (ManagedObjectID) -> ManagedObjectID, _ db: Database) throws {
        let join = change.table
        let first = resolve(change.first).primaryKey
        let second = resolve(change.second).primaryKey
        if change.setsInverseOrder {
            guard let inverseOrder = join.inverseOrderColumn else { return }
            try db.cachedStatement(sql: "UPDATE \(join.name.quotedDatabaseIdentifier) SET \(inverseOrder.quotedDatabaseIdentifier) = ? WHERE \(join.firstColumn.quotedDatabaseIdentifier) = ? AND \(join.secondColumn.quotedDatabaseIdentifier) = ?")
                .execute(arguments: [change.order ?? 0, first, second])
            return
        }
        if change.isInsert {
            if let orderColumn = join.orderColumn {
                // An upsert, not a replace: the row keeps the inverse side's position.
                try db.cachedStatement(sql: "INSERT INTO \(join.name.quotedDatabaseIdentifier) (\(join.firstColumn.quotedDatabaseIdentifier), \(join.secondColumn.quotedDatabaseIdentifier), \(orderColumn.quotedDatabaseIdentifier)) VALUES (?, ?, ?) ON CONFLICT (\(join.firstColumn.quotedDatabaseIdentifier), \(join.secondColumn.quotedDatabaseIdentifier)) DO UPDATE SET \(orderColumn.quotedDatabaseIdentifier) = excluded.\(orderColumn.quotedDatabaseIdentifier)")
                    .execute(arguments: [first, second, change.order ?? 0])
            } else {
                try db.cachedStatement(sql: "INSERT OR IGNORE INTO \(join.name.quotedDatabaseIdentifier) (\(join.firstColumn.quotedDatabaseIdentifier), \(join.secondColumn.quotedDatabaseIdentifier)) VALUES (?, ?)")
                    .execute(arguments: [first, second])
            }
        } else {
            try db.cachedStatement(sql: "DELETE FROM \(join.name.quotedDatabaseIdentifier) WHERE \(join.firstColumn.quotedDatabaseIdentifier) = ? AND \(join.secondColumn.quotedDatabaseIdentifier) = ?")
                .execute(arguments: [first, second])
        }
    }
}

/// Work done inside a save's transaction after the rows are written: persistent history,
/// sync metadata. A hook that throws rolls the whole save back.
protocol SaveHook: Sendable {
    func didWrite(_ request: SaveRequest, result: SaveResult, database: SQLiteDatabase, _ db: Database) throws
}

/// The `INSERT` statement of an entity and how to fill its arguments, computed once.
struct InsertPlan: Sendable {
    enum Item: Sendable {
        case value(Int)
        case foreignKey(Int, hasEntityColumn: Bool)
    }
    var sql: String
    var items: [Item]
    var argumentCount: Int

    init(entity: EntityDescription, schema: StoreSchema) {
        let mapping = schema.mapping(for: entity)
        var columns = ["Z_PK", "Z_ENT", "Z_OPT"]
        var items: [Item] = []
        for (index, storage) in mapping.storage.enumerated() {
            switch storage {
            case let .column(column):
                columns.append(column)
                items.append(.value(index))
            case let .foreignKey(column, entityColumn):
                columns.append(column)
                if let entityColumn { columns.append(entityColumn) }
                items.append(.foreignKey(index, hasEntityColumn: entityColumn != nil))
            default:
                continue
            }
        }
        sql = "INSERT INTO \(mapping.table.quotedDatabaseIdentifier) (\(columns.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
        self.items = items
        argumentCount = columns.count
    }
}

/// Binds property values with SQLite's C API, checking each result: a value larger than
/// SQLite accepts (its length limit, 1 GB by default; lengths are 64-bit, so a 2 GiB value is
/// refused, not a trap) is a clear error, never a silently unbound NULL.
enum SQLiteBinding {
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func bindText(_ text: inout String, _ statement: SQLiteStatement, _ position: Int32) -> Int32 {
        text.withUTF8 { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                return sqlite3_bind_text(statement, position, "", 0, transient)
            }
            return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) { pointer in
                sqlite3_bind_text64(statement, position, pointer, sqlite3_uint64(buffer.count), transient, UInt8(SQLITE_UTF8))
            }
        }
    }

    private static func bindBlob(_ data: Data, _ statement: SQLiteStatement, _ position: Int32) -> Int32 {
        data.withUnsafeBytes { buffer in
            sqlite3_bind_blob64(statement, position, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(buffer.count), transient)
        }
    }

    @inline(__always)
    static func bind(_ value: PropertyValue, to statement: SQLiteStatement, at position: inout Int32) throws(NimbusError) {
        defer { position += 1 }
        let code: Int32
        switch value {
        case .null, .objects: code = sqlite3_bind_null(statement, position)
        case let .integer(v): code = sqlite3_bind_int64(statement, position, v)
        case let .double(v): code = sqlite3_bind_double(statement, position, v)
        case let .bool(v): code = sqlite3_bind_int64(statement, position, v ? 1 : 0)
        case let .date(v): code = sqlite3_bind_double(statement, position, v.timeIntervalSinceReferenceDate)
        case let .object(id): code = sqlite3_bind_int64(statement, position, id.primaryKey)
        case var .string(v):
            code = bindText(&v, statement, position)
        case let .data(v):
            code = bindBlob(v, statement, position)
        default:
            // Decimals, UUIDs and URLs: through their database value.
            switch value.databaseValue.storage {
            case .null: code = sqlite3_bind_null(statement, position)
            case let .int64(v): code = sqlite3_bind_int64(statement, position, v)
            case let .double(v): code = sqlite3_bind_double(statement, position, v)
            case var .string(v):
                code = bindText(&v, statement, position)
            case let .blob(v):
                code = bindBlob(v, statement, position)
            }
        }
        if code != SQLITE_OK { throw failure(code, value: value, statement: statement, position: position) }
    }

    /// Refuses a value too large for SQLite before it reaches a binding that is not this
    /// type's (GRDB's arguments count bytes in 32 bits and trap beyond).
    static func checkLength(_ value: PropertyValue) throws(NimbusError) {
        let count: Int = switch value {
        case let .string(v): v.utf8.count
        case let .data(v): v.count
        default: 0
        }
        if count > Int(Int32.max) { throw failure(SQLITE_TOOBIG, value: value, sql: "the statement", position: 1) }
    }

    private static func failure(_ code: Int32, value: PropertyValue, statement: SQLiteStatement, position: Int32) -> NimbusError {
        failure(code, value: value, sql: sqlite3_sql(statement).map { String(cString: $0) } ?? "?", position: position)
    }

    private static func failure(_ code: Int32, value: PropertyValue, sql: String, position: Int32) -> NimbusError {
        let size: String = switch value {
        case let .string(v): "\(v.utf8.count) bytes of text"
        case let .data(v): "\(v.count) bytes of data"
        default: "a value"
        }
        if code == SQLITE_TOOBIG {
            return NimbusError(.invalidArgument, "\(size) is larger than SQLite accepts in one value (parameter \(position) of \(sql)); "
                + "nothing was written: store such data in files and keep their names in the store")
        }
        let message = String(cString: sqlite3_errstr(code))
        return NimbusError(.sqliteError, "binding \(size) to parameter \(position) of \(sql) failed: \(message) (code \(code)); nothing was written")
    }
}
