import Foundation
import GRDB

/// Persistent history in a store file, in Core Data's tables: `ATRANSACTION`,
/// `ATRANSACTIONSTRING`, `ACHANGE` (change types 0/1/2, `ZCOLUMNS` a bitmap of updated
/// properties in name order, `ZTOMBSTONE` the preserved values as JSON), plus
/// `ANIMBUSHISTORYCONSUMER` for the purge gatekeeper. Numbers come from `Z_PRIMARYKEY`
/// rows 16001–16003, so they are never reused after a purge.
enum HistoryStore {
    static let changeEntity = 16001
    static let transactionEntity = 16002
    static let stringEntity = 16003

    /// Creates the history tables if the store lacks them.
    static func prepare(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS ATRANSACTIONSTRING (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR UNIQUE);
            CREATE TABLE IF NOT EXISTS ATRANSACTION (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZAUTHORTS INTEGER,
                ZBUNDLEIDTS INTEGER, ZCONTEXTNAMETS INTEGER, ZPROCESSIDTS INTEGER, ZTIMESTAMP FLOAT);
            CREATE TABLE IF NOT EXISTS ACHANGE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER,
                ZENTITY INTEGER, ZENTITYPK INTEGER, ZTRANSACTIONID INTEGER, ZCOLUMNS BLOB, ZTOMBSTONE BLOB);
            CREATE INDEX IF NOT EXISTS ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID);
            CREATE INDEX IF NOT EXISTS ATRANSACTION_ZTIMESTAMP_INDEX ON ATRANSACTION (ZTIMESTAMP);
            CREATE TABLE IF NOT EXISTS ANIMBUSHISTORYCONSUMER (ZNAME VARCHAR PRIMARY KEY, ZTRANSACTION INTEGER);
            INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16001, 'CHANGE', 0, 0);
            INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16002, 'TRANSACTION', 0, 0);
            INSERT OR IGNORE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (16003, 'TRANSACTIONSTRING', 0, 0);
            """)
    }

    static func isPrepared(_ db: Database) throws -> Bool { try db.tableExists("ATRANSACTION") }

    /// The metadata key that says a store tracks history, as Core Data names it.
    static let metadataKey = "NSPersistentHistoryTrackingKey"

    /// Marks the store's metadata as tracking history.
    static func markTracking(_ db: Database) throws {
        guard var metadata = try StoreMetadata.read(db), metadata.dictionary[metadataKey] as? Bool != true else { return }
        metadata.dictionary[metadataKey] = true
        try metadata.write(db)
    }

    /// One object's change, as a save or a batch request reports it.
    struct Change {
        var type: PersistentHistoryChange.ChangeType
        var id: ManagedObjectID
        var columns: [Int] = []
        var tombstone: [String: PropertyValue] = [:]
    }

    /// Writes one transaction and its changes; returns the transaction number.
    @discardableResult
    static func record(_ changes: [Change], author: String?, contextName: String?, _ db: Database) throws -> Int64? {
        guard !changes.isEmpty else { return nil }
        let number = try reserve(HistoryStore.transactionEntity, count: 1, db)
        let process = ProcessInfo.processInfo
        try db.cachedStatement(sql: """
            INSERT INTO ATRANSACTION (Z_PK, Z_ENT, Z_OPT, ZAUTHORTS, ZBUNDLEIDTS, ZCONTEXTNAMETS, ZPROCESSIDTS, ZTIMESTAMP)
            VALUES (?, 16002, 1, ?, ?, ?, ?, ?)
            """).execute(arguments: [number, try string(author, db), try string(process.processName, db), try string(contextName, db),
                                     try string(String(process.processIdentifier), db), Date().timeIntervalSinceReferenceDate])
        var changeNumber = try reserve(HistoryStore.changeEntity, count: changes.count, db) - Int64(changes.count) + 1
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Rows go in groups of `rowsPerInsert` per statement, bound straight through SQLite's
        // C API and stepped by GRDB (so its execution hooks still run): a save of many objects
        // writes one history row per object, and per-statement overhead would dominate.
        var start = changes.startIndex
        while start < changes.endIndex {
            let rows = min(rowsPerInsert, changes.endIndex - start)
            let insert = try db.cachedStatement(sql: insertChangesSQL(rows: rows))
            insert.setUncheckedArguments(StatementArguments())
            let handle = insert.sqliteStatement
            var position: Int32 = 1
            for change in changes[start..<start + rows] {
                try SQLiteBinding.bind(.integer(changeNumber), to: handle, at: &position)
                try SQLiteBinding.bind(.integer(Int64(change.type.rawValue)), to: handle, at: &position)
                try SQLiteBinding.bind(.integer(Int64(change.id.entity.entityNumber)), to: handle, at: &position)
                try SQLiteBinding.bind(.integer(change.id.primaryKey), to: handle, at: &position)
                try SQLiteBinding.bind(.integer(number), to: handle, at: &position)
                try SQLiteBinding.bind(change.type == .update ? .data(bitmap(change.columns)) : .null, to: handle, at: &position)
                try SQLiteBinding.bind(change.tombstone.isEmpty ? .null : .data(try encoder.encode(change.tombstone)), to: handle, at: &position)
                changeNumber += 1
            }
            try insert.execute()
            start += rows
        }
        return number
    }

    /// History rows written by one `INSERT` statement (7 parameters each).
    private static let rowsPerInsert = 64

    /// `INSERT INTO ACHANGE … VALUES (…), (…), …` for `rows` rows.
    private static func insertChangesSQL(rows: Int) -> String {
        "INSERT INTO ACHANGE (Z_PK, Z_ENT, Z_OPT, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, ZCOLUMNS, ZTOMBSTONE) VALUES "
            + repeatElement("(?, 16001, 1, ?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
    }

    /// Reserves `count` numbers for a system entity; returns the last.
    static func reserve(_ entity: Int, count: Int, _ db: Database) throws -> Int64 {
        // An update, then a read (`RETURNING` would buffer its row in an ephemeral B-tree).
        try db.cachedStatement(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + ? WHERE Z_ENT = ?").execute(arguments: [count, entity])
        guard let maximum = try Int64.fetchOne(db.cachedStatement(sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?"), arguments: [entity]) else {
            throw NimbusError(.corruptStore, "the store's Z_PRIMARYKEY has no row for history entity \(entity)")
        }
        return maximum
    }

    /// The id of a string in `ATRANSACTIONSTRING`, adding it when new.
    private static func string(_ value: String?, _ db: Database) throws -> Int64? {
        guard let value else { return nil }
        if let id = try Int64.fetchOne(db.cachedStatement(sql: "SELECT Z_PK FROM ATRANSACTIONSTRING WHERE ZNAME = ?"), arguments: [value]) {
            return id
        }
        let id = try reserve(HistoryStore.stringEntity, count: 1, db)
        try db.cachedStatement(sql: "INSERT INTO ATRANSACTIONSTRING (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, 16003, 1, ?)").execute(arguments: [id, value])
        return id
    }

    /// Bit `i` of byte `i / 8` set for each property index `i`.
    static func bitmap(_ indexes: [Int]) -> Data {
        guard let last = indexes.max() else { return Data() }
        var bytes = [UInt8](repeating: 0, count: last / 8 + 1)
        for index in indexes { bytes[index / 8] |= 1 << UInt8(index % 8) }
        return Data(bytes)
    }

    static func indexes(in bitmap: Data) -> [Int] {
        var result: [Int] = []
        for (byteIndex, byte) in bitmap.enumerated() {
            for bit in 0..<8 where byte & (1 << UInt8(bit)) != 0 { result.append(byteIndex * 8 + bit) }
        }
        return result
    }

    /// The newest transaction number (0 when there is none).
    static func lastTransaction(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 16002") ?? 0
    }
}

/// Records every save of a store with history tracking on, in the save's transaction.
struct HistoryRecorder: SaveHook {
    func didWrite(_ request: SaveRequest, result: SaveResult, database: SQLiteDatabase, _ db: Database) throws {
        var changes: [HistoryStore.Change] = []
        for id in result.insertedIDs {
            changes.append(.init(type: .insert, id: id))
        }
        for update in request.updates where !update.changedProperties.isEmpty {
            changes.append(.init(type: .update, id: update.id, columns: update.changedProperties))
        }
        for delete in request.deletes {
            changes.append(.init(type: .delete, id: delete.id, tombstone: delete.tombstone))
        }
        try HistoryStore.record(changes, author: request.author, contextName: request.contextName, db)
    }
}
