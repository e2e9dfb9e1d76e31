import Foundation
import GRDB

/// The search index's tables in the store file:
///
/// - `ANIMBUSSEARCH`, an FTS5 table (`unicode61` tokenizer, `remove_diacritics 2`) with
///   columns `ZDISPLAYNAME`, `ZCONTENT` and `ZENTITY` (unindexed); an object's row id is
///   its root entity number × 2⁴⁰ + its primary key.
/// - `ANIMBUSSEARCHINFO(ZKEY, ZVALUE)`: `state` (`ready` or `rebuilding`), `target` (the
///   transaction a rebuild indexes up to) and `model` (the model version hash the row ids
///   were made with; entity numbers change with the model).
/// - Its history cursor is its row in `ANIMBUSHISTORYCONSUMER` (consumer
///   `NimbusSearchIndex`), written in the transaction that writes the entries, so purges
///   never pass it and it resumes after a crash exactly where it stopped.
enum SearchIndexStorage {
    static let consumer = "NimbusSearchIndex"

    static func prepare(_ db: Database) throws {
        try HistoryStore.prepare(db)
        try db.execute(sql: """
            CREATE VIRTUAL TABLE IF NOT EXISTS ANIMBUSSEARCH USING fts5(ZDISPLAYNAME, ZCONTENT, ZENTITY UNINDEXED, \
            tokenize = 'unicode61 remove_diacritics 2');
            CREATE TABLE IF NOT EXISTS ANIMBUSSEARCHINFO (ZKEY VARCHAR PRIMARY KEY, ZVALUE VARCHAR);
            """)
    }

    static func isPrepared(_ db: Database) throws -> Bool { try db.tableExists("ANIMBUSSEARCHINFO") }

    /// The row id of an object's entry.
    static func rowID(of id: ManagedObjectID) -> Int64 { Int64(id.entity.rootEntityNumber) << 40 | id.primaryKey }

    static func info(_ key: String, _ db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT ZVALUE FROM ANIMBUSSEARCHINFO WHERE ZKEY = ?", arguments: [key])
    }

    static func setInfo(_ key: String, _ value: String, _ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO ANIMBUSSEARCHINFO (ZKEY, ZVALUE) VALUES (?, ?)", arguments: [key, value])
    }

    /// The last transaction indexed, or nil before the first build.
    static func cursor(_ db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT ZTRANSACTION FROM ANIMBUSHISTORYCONSUMER WHERE ZNAME = ?", arguments: [consumer])
    }

    static func setCursor(_ transaction: Int64, _ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO ANIMBUSHISTORYCONSUMER (ZNAME, ZTRANSACTION) VALUES (?, ?)",
                       arguments: [consumer, transaction])
    }

    /// Replaces or removes entries.
    static func write(upserts: [(ManagedObjectID, SearchableItem)], deletes: some Collection<ManagedObjectID>, _ db: Database) throws {
        let delete = try db.cachedStatement(sql: "DELETE FROM ANIMBUSSEARCH WHERE rowid = ?")
        for id in deletes { try delete.execute(arguments: [rowID(of: id)]) }
        let insert = try db.cachedStatement(sql: "INSERT INTO ANIMBUSSEARCH (rowid, ZDISPLAYNAME, ZCONTENT, ZENTITY) VALUES (?, ?, ?, ?)")
        for (id, item) in upserts {
            try delete.execute(arguments: [rowID(of: id)])
            try insert.execute(arguments: [rowID(of: id), item.displayName, item.text.joined(separator: "\n"), id.entity.entityNumber])
        }
    }

    /// Net changes of the transactions in `(after, upTo]`: per object, whether it was
    /// deleted (the last change wins).
    static func changes(after: Int64, upTo: Int64, model: ManagedObjectModel, storeKey: UInt32, _ db: Database) throws -> [ManagedObjectID: Bool] {
        var result: [ManagedObjectID: Bool] = [:]
        let cursor = try Row.fetchCursor(db, sql: """
            SELECT ZCHANGETYPE, ZENTITY, ZENTITYPK FROM ACHANGE WHERE ZTRANSACTIONID > ? AND ZTRANSACTIONID <= ? ORDER BY Z_PK
            """, arguments: [after, upTo])
        while let row = try cursor.next() {
            guard let entity = model.entity(number: row[1]) else { continue }
            let id = ManagedObjectID(entity: entity, storeKey: storeKey, primaryKey: row[2])
            result[id] = (row[0] as Int) == PersistentHistoryChange.ChangeType.delete.rawValue
        }
        return result
    }

    /// The transaction that ends a batch of up to `count` transactions after `cursor`.
    static func batchEnd(after cursor: Int64, count: Int, last: Int64, _ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT Z_PK FROM ATRANSACTION WHERE Z_PK > ? ORDER BY Z_PK LIMIT 1 OFFSET ?",
                           arguments: [cursor, max(count - 1, 0)]) ?? last
    }

    /// Whether history after `cursor` is whole: the next transaction is still there.
    static func historyContinues(after cursor: Int64, _ db: Database) throws -> Bool {
        try Int64.fetchOne(db, sql: "SELECT Z_PK FROM ATRANSACTION WHERE Z_PK = ?", arguments: [cursor + 1]) != nil
    }
}
