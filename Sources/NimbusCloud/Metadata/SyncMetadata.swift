import Foundation
import GRDB
import struct NimbusWire.Record
import NimbusWire

/// The sync metadata tables in a mirrored store file, beside the data (as Core Data keeps
/// its `ANSCK*` tables), written in the same transactions as the rows they describe.
///
/// - `ANIMBUSCLOUDSTATE`: engine state by key (device id, clock, zone token, history cursor…).
/// - `ANIMBUSCLOUDRECORD`: per object its record name, change tag and ancestor (the last
///   record the server confirmed, every field with its stamp).
/// - `ANIMBUSCLOUDPENDING`: per object the fields edited locally and not yet confirmed, each
///   with the stamp of its edit (the coalesced outbox).
/// - `ANIMBUSCLOUDDELETION`: deletions not yet confirmed.
/// - `ANIMBUSCLOUDLINK`: many-to-many memberships (CDMR records) with their stamps; pending
///   until confirmed.
/// - `ANIMBUSCLOUDTOMBSTONE`: record names known deleted.
/// - `ANIMBUSCLOUDPARKED`: records that arrived before a record they refer to.
/// - `ANIMBUSCLOUDFIRSTSAVE`: unique-keyed records whose first save was sent, not yet
///   confirmed (see ``FirstSaves``).
/// - `ANIMBUSCLOUDQUARANTINE`: records this device could not apply (see ``Quarantine``).
enum SyncMetadata {
    static func prepare(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS ANIMBUSCLOUDSTATE (ZKEY TEXT PRIMARY KEY, ZVALUE);
            CREATE TABLE IF NOT EXISTS ANIMBUSCLOUDRECORD (ZENTITY INTEGER NOT NULL, ZPK INTEGER NOT NULL,
                ZRECORDNAME TEXT NOT NULL UNIQUE, ZCHANGETAG TEXT, ZANCESTOR BLOB, PRIMARY KEY (ZENTITY, ZPK));
            CREATE TABLE IF NOT EXISTS ANIMBUSCLOUDPENDING (ZENTITY INTEGER NOT NULL, ZPK INTEGER NOT NULL,
                ZFIELDS BLOB NOT NULL, ZATTEMPTS INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (ZENTITY, ZPK));
            -- The exporter takes the next batch in (attempts, rowid) order: through this index it
            -- reads only the batch, not every pending row (a scan and sort per batch made an
            -- upload of N objects cost N² / batch).
            CREATE INDEX IF NOT EXISTS ANIMBUSCLOUDPENDING_ORDER ON ANIMBUSCLOUDPENDING (ZATTEMPTS);
            CREATE TABLE IF NOT EXISTS ANIMBUSCLOUDDELETION (ZRECORDNAME TEXT PRIMARY KEY, ZENTITY INTEGER NOT NULL,
                ZTIME INTEGER NOT NULL, ZDEVICE TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS ANIMBUSCLOUDLINK (ZRELATIONSHIP TEXT NOT NULL, ZFIRSTENTITY INTEGER NOT NULL,
                ZFIRSTPK INTEGER NOT NULL, ZSECONDENTITY INTEGER NOT NULL, ZSECONDPK INTEGER NOT NULL, ZLINKED INTEGER NOT NULL,
                ZTIME INTEGER NOT NULL, ZDEVICE TEXT NOT NULL, ZPENDING INTEGER NOT NULL,
                PRIMARY KEY (ZRELATIONSHIP, ZFIRSTENTITY, ZFIRSTPK, ZSECONDENTITY, ZSECONDPK));
            CREATE INDEX IF NOT EXISTS ANIMBUSCLOUDLINK_PENDING ON ANIMBUSCLOUDLINK (ZPENDING) WHERE ZPENDING = 1;
            -- Memberships are looked up by either end (an object's links when it is deleted or its
            -- relationship changes): the primary key leads with the relationship, so without
            -- these each lookup scanned the table, and capturing or applying N objects cost N × links.
            -- (IF NOT EXISTS: stores made before them get them at their next load.)
            CREATE INDEX IF NOT EXISTS ANIMBUSCLOUDLINK_FIRST ON ANIMBUSCLOUDLINK (ZFIRSTENTITY, ZFIRSTPK);
            CREATE INDEX IF NOT EXISTS ANIMBUSCLOUDLINK_SECOND ON ANIMBUSCLOUDLINK (ZSECONDENTITY, ZSECONDPK);
            CREATE TABLE IF NOT EXISTS ANIMBUSCLOUDTOMBSTONE (ZRECORDNAME TEXT PRIMARY KEY);
            CREATE TABLE IF NOT EXISTS ANIMBUSCLOUDPARKED (ZRECORDNAME TEXT PRIMARY KEY, ZWAITINGFOR TEXT NOT NULL, ZRECORD BLOB NOT NULL);
            CREATE INDEX IF NOT EXISTS ANIMBUSCLOUDPARKED_WAITING ON ANIMBUSCLOUDPARKED (ZWAITINGFOR);
            CREATE TABLE IF NOT EXISTS ANIMBUSCLOUDCONFLICT (ZRECORDNAME TEXT PRIMARY KEY, ZCOUNT INTEGER NOT NULL, ZTIME REAL NOT NULL);
            CREATE TABLE IF NOT EXISTS ANIMBUSCLOUDFIRSTSAVE (ZRECORDNAME TEXT PRIMARY KEY);
            """)
        try Quarantine.prepare(db)
        try Placement.prepare(db)
        try MovedRecords.prepare(db)
    }

    // MARK: State

    static func state(_ key: StateKey, _ db: Database) throws -> DatabaseValue {
        try DatabaseValue.fetchOne(db, sql: "SELECT ZVALUE FROM ANIMBUSCLOUDSTATE WHERE ZKEY = ?", arguments: [key.rawValue]) ?? .null
    }

    /// A state value as a number. (Read with its own statement: in release builds Swift
    /// 6.3.1 crashed optimizing `Double.fromDatabaseValue` inlined into a caller.)
    static func doubleState(_ key: StateKey, _ db: Database) throws -> Double? {
        try Double.fetchOne(db, sql: "SELECT ZVALUE FROM ANIMBUSCLOUDSTATE WHERE ZKEY = ?", arguments: [key.rawValue])
    }

    static func setState(_ key: StateKey, _ value: (any DatabaseValueConvertible)?, _ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO ANIMBUSCLOUDSTATE (ZKEY, ZVALUE) VALUES (?, ?)", arguments: [key.rawValue, value])
    }

    enum StateKey: String {
        case deviceID, clock, zoneToken, historyCursor, zoneReady, lastSync, lastError, refetching, seenDuringRefetch, zoneEpoch
        /// The model the metadata was written under (``MetadataSchema``), and what an upgrade made applicable (``UpgradeReplay``).
        case schema, replay
        /// Seconds to add to this device's clock to read the server's (``ServerClock``).
        case clockOffset
    }

    // MARK: Records

    struct RecordRow {
        var entity: Int
        var primaryKey: Int64
        var recordName: String
        var changeTag: String?
        var ancestor: Record?
    }

    static func record(entity: Int, primaryKey: Int64, _ db: Database) throws -> RecordRow? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT ZENTITY, ZPK, ZRECORDNAME, ZCHANGETAG, ZANCESTOR FROM ANIMBUSCLOUDRECORD WHERE ZENTITY = ? AND ZPK = ?"),
                         arguments: [entity, primaryKey]).map(recordRow)
    }

    static func record(named name: String, _ db: Database) throws -> RecordRow? {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT ZENTITY, ZPK, ZRECORDNAME, ZCHANGETAG, ZANCESTOR FROM ANIMBUSCLOUDRECORD WHERE ZRECORDNAME = ?"),
                         arguments: [name]).map(recordRow)
    }

    private static func recordRow(_ row: Row) -> RecordRow {
        RecordRow(entity: row[0], primaryKey: row[1], recordName: row[2], changeTag: row[3],
                  ancestor: (row[4] as Data?).flatMap { try? WireCoding.record(from: $0) })
    }

    static func insertRecord(entity: Int, primaryKey: Int64, name: String, _ db: Database) throws {
        try db.execute(sql: "INSERT INTO ANIMBUSCLOUDRECORD (ZENTITY, ZPK, ZRECORDNAME) VALUES (?, ?, ?)",
                       arguments: [entity, primaryKey, name])
    }

    static func confirm(_ record: Record, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE ANIMBUSCLOUDRECORD SET ZCHANGETAG = ?, ZANCESTOR = ? WHERE ZRECORDNAME = ?")
            .execute(arguments: [record.changeTag, try WireJSONWriter.encode(record), record.recordName])
    }

    static func removeRecord(named name: String, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM ANIMBUSCLOUDRECORD WHERE ZRECORDNAME = ?", arguments: [name])
        try FirstSaves.forget(name, db)
        try db.execute(sql: "INSERT OR IGNORE INTO ANIMBUSCLOUDTOMBSTONE (ZRECORDNAME) VALUES (?)", arguments: [name])
    }

    /// Forgets that a record name was deleted (the server never had the record).
    static func forgetTombstone(named name: String, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM ANIMBUSCLOUDTOMBSTONE WHERE ZRECORDNAME = ?", arguments: [name])
    }

    static func isTombstoned(_ name: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM ANIMBUSCLOUDTOMBSTONE WHERE ZRECORDNAME = ?)"), arguments: [name]) ?? false
    }

    // MARK: Pending fields

    static func pendingFields(entity: Int, primaryKey: Int64, _ db: Database) throws -> [String: HLCStamp]? {
        guard let data = try Data.fetchOne(db.cachedStatement(sql: "SELECT ZFIELDS FROM ANIMBUSCLOUDPENDING WHERE ZENTITY = ? AND ZPK = ?"),
                                           arguments: [entity, primaryKey]) else { return nil }
        return try WireCoding.stamps(from: data)
    }

    static func setPendingFields(_ fields: [String: HLCStamp], entity: Int, primaryKey: Int64, _ db: Database) throws {
        if fields.isEmpty {
            try db.cachedStatement(sql: "DELETE FROM ANIMBUSCLOUDPENDING WHERE ZENTITY = ? AND ZPK = ?").execute(arguments: [entity, primaryKey])
        } else {
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO ANIMBUSCLOUDPENDING (ZENTITY, ZPK, ZFIELDS) VALUES (?, ?, ?)")
                .execute(arguments: [entity, primaryKey, try StampsJSON.encode(fields)])
        }
    }

    /// Merges edits into an object's pending fields (a later stamp replaces an earlier one).
    static func addPendingFields(_ fields: [String: HLCStamp], entity: Int, primaryKey: Int64, _ db: Database) throws {
        var merged = try pendingFields(entity: entity, primaryKey: primaryKey, db) ?? [:]
        for (name, stamp) in fields where merged[name].map({ $0 < stamp }) ?? true { merged[name] = stamp }
        try setPendingFields(merged, entity: entity, primaryKey: primaryKey, db)
    }

    static func pendingCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: """
            SELECT (SELECT count(*) FROM ANIMBUSCLOUDPENDING) + (SELECT count(*) FROM ANIMBUSCLOUDDELETION)
                 + (SELECT count(*) FROM ANIMBUSCLOUDLINK WHERE ZPENDING = 1) + (SELECT count(*) FROM ANIMBUSCLOUDMARKER)
            """) ?? 0
    }
}

/// The JSON of metadata blobs (records and stamps as on the wire): written with NimbusWire's
/// `WireJSONWriter` (the same bytes as `JSONEncoder` with `.sortedKeys`), read with its fast
/// reader, and with `JSONDecoder` whatever the reader declines.
enum WireCoding {
    static let decoder = JSONDecoder()

    /// A record blob, read with NimbusWire's fast reader (`JSONDecoder` when it declines).
    static func record(from data: Data) throws -> Record {
        try data.withUnsafeBytes { Record.readJSON($0) } ?? decoder.decode(Record.self, from: data)
    }

    /// A blob of field stamps, read with NimbusWire's fast reader (`JSONDecoder` when it declines).
    static func stamps(from data: Data) throws -> [String: HLCStamp] {
        try data.withUnsafeBytes { StampsJSON.read($0) } ?? decoder.decode([String: HLCStamp].self, from: data)
    }
}
