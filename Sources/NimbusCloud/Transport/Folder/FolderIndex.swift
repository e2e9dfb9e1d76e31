import Foundation
import GRDB
import NimbusWire

/// A device's index of a shared folder: every record folded from the logs it has imported
/// (its own included), what it imported, and its own sequence numbers. It plays the server's
/// part for the engine: change tokens are positions in its change sequence, change tags are
/// its own, lookups read it.
///
/// It is a SQLite file of this device only (beside the store by default), never inside the
/// shared folder. Lost, it is rebuilt from the folder (a new peer id, and the engine refetches).
final class FolderIndex: Sendable {
    let queue: DatabaseQueue
    /// This index's id: change tokens and tags of another index are refused (expired).
    let indexID: String
    /// This device's peer id (its folder under `peers/`).
    let peerID: String

    init(url: URL) throws {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            queue = try DatabaseQueue(path: url.path, configuration: configuration)
            let ids = try queue.write { db in
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS FRECORD (ZONE TEXT NOT NULL, NAME TEXT NOT NULL, TYPE TEXT NOT NULL, FIELDS BLOB NOT NULL,
                        CREATED TEXT, MODIFIED TEXT, DELETION TEXT, SEQ INTEGER NOT NULL, PRIMARY KEY (ZONE, NAME));
                    CREATE INDEX IF NOT EXISTS FRECORD_SEQ ON FRECORD (ZONE, SEQ);
                    CREATE TABLE IF NOT EXISTS FIMPORTED (PEER TEXT NOT NULL, SEQ INTEGER NOT NULL, CHECKSUM TEXT NOT NULL,
                        PRIMARY KEY (PEER, SEQ, CHECKSUM));
                    CREATE TABLE IF NOT EXISTS FCOVERED (PEER TEXT PRIMARY KEY, SEQ INTEGER NOT NULL);
                    CREATE TABLE IF NOT EXISTS FSTATE (KEY TEXT PRIMARY KEY, VALUE TEXT NOT NULL);
                    """)
                func value(_ key: String, default make: () -> String) throws -> String {
                    if let value = try String.fetchOne(db, sql: "SELECT VALUE FROM FSTATE WHERE KEY = ?", arguments: [key]) { return value }
                    let value = make()
                    try db.execute(sql: "INSERT INTO FSTATE (KEY, VALUE) VALUES (?, ?)", arguments: [key, value])
                    return value
                }
                return (try value("index") { UUID().uuidString.lowercased() }, try value("peer") { UUID().uuidString.lowercased() })
            }
            indexID = ids.0
            peerID = ids.1
        } catch let error as CloudError {
            throw error
        } catch {
            throw CloudError(.invalidConfiguration, "the folder index at \(url.path) could not be opened: \(error)")
        }
    }

    // MARK: State

    static func integer(_ key: String, _ db: Database) throws -> Int64 {
        Int64(try String.fetchOne(db, sql: "SELECT VALUE FROM FSTATE WHERE KEY = ?", arguments: [key]) ?? "0") ?? 0
    }

    static func setInteger(_ key: String, _ value: Int64, _ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO FSTATE (KEY, VALUE) VALUES (?, ?)", arguments: [key, String(value)])
    }

    /// The index's change sequence: the number of the last visible change.
    static func changeSeq(_ db: Database) throws -> Int64 { try integer("changeSeq", db) }

    // MARK: Records

    func record(zone: String, name: String, _ db: Database) throws -> IndexedRecord? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM FRECORD WHERE ZONE = ? AND NAME = ?", arguments: [zone, name]) else { return nil }
        return try Self.decode(row)
    }

    static func decode(_ row: Row) throws -> IndexedRecord {
        let decoder = JSONDecoder()
        func stamp<T: Decodable>(_ column: String, _ type: T.Type) throws -> T? {
            guard let text: String = row[column] else { return nil }
            return try decoder.decode(T.self, from: Data(text.utf8))
        }
        return IndexedRecord(zone: row["ZONE"], name: row["NAME"], type: row["TYPE"],
                             fields: try decoder.decode([String: Field].self, from: row["FIELDS"] as Data),
                             created: try stamp("CREATED", RecordStamp.self), modified: try stamp("MODIFIED", RecordStamp.self),
                             deletion: try stamp("DELETION", HLCStamp.self), seq: row["SEQ"])
    }

    /// Stores a folded record; a visible change takes the next change sequence number.
    static func put(_ outcome: FolderMerge.Outcome, _ db: Database) throws {
        var record = outcome.record
        if outcome.visible {
            record.seq = try changeSeq(db) + 1
            try setInteger("changeSeq", record.seq, db)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func text<T: Encodable>(_ value: T?) throws -> String? { try value.map { String(decoding: try encoder.encode($0), as: UTF8.self) } }
        try db.execute(sql: """
            INSERT OR REPLACE INTO FRECORD (ZONE, NAME, TYPE, FIELDS, CREATED, MODIFIED, DELETION, SEQ) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [record.zone, record.name, record.type, try encoder.encode(record.fields), try text(record.created),
                             try text(record.modified), try text(record.deletion), record.seq])
    }

    /// Folds a log into the index and remembers it as imported; returns the visible changes.
    @discardableResult
    func fold(_ log: FolderLog, checksum: String, _ db: Database) throws -> Int {
        var changes = 0
        if let erase = log.erase { changes += try self.erase(zone: log.zone, before: erase, db) }
        let erased = try Self.erasedBefore(zone: log.zone, db)
        for var save in log.saves {
            if let erased {
                save.fields = save.fields.filter { $0.value.stamp >= erased }
                if save.fields.isEmpty { continue }
            }
            if let outcome = FolderMerge.save(save, at: log.at, zone: log.zone, onto: try record(zone: log.zone, name: save.recordName, db)) {
                try Self.put(outcome, db)
                if outcome.visible { changes += 1 }
            }
        }
        for deletion in log.deletions where erased.map({ deletion.stamp >= $0 }) ?? true {
            if let outcome = FolderMerge.delete(deletion, zone: log.zone, onto: try record(zone: log.zone, name: deletion.recordName, db)) {
                try Self.put(outcome, db)
                if outcome.visible { changes += 1 }
            }
        }
        try db.execute(sql: "INSERT OR IGNORE INTO FIMPORTED (PEER, SEQ, CHECKSUM) VALUES (?, ?, ?)", arguments: [log.peer, log.seq, checksum])
        return changes
    }

    // MARK: Erasing

    /// The stamp before which the zone's content was erased, if it was.
    static func erasedBefore(zone: String, _ db: Database) throws -> HLCStamp? {
        guard let text = try String.fetchOne(db, sql: "SELECT VALUE FROM FSTATE WHERE KEY = ?", arguments: ["erased." + zone]) else { return nil }
        return try JSONDecoder().decode(HLCStamp.self, from: Data(text.utf8))
    }

    /// The index's epoch: it grows with each erase, and change tokens of an earlier epoch
    /// expire (the engine refetches the zone and meets the erasing device's epoch record).
    static func epoch(_ db: Database) throws -> Int64 { try integer("epoch", db) }

    /// Erases the zone's values and tombstones stamped before `stamp` (a later erase only);
    /// returns the records that changed.
    func erase(zone: String, before stamp: HLCStamp, _ db: Database) throws -> Int {
        if let current = try Self.erasedBefore(zone: zone, db), current >= stamp { return 0 }
        try db.execute(sql: "INSERT OR REPLACE INTO FSTATE (KEY, VALUE) VALUES (?, ?)",
                       arguments: ["erased." + zone, String(decoding: try JSONEncoder().encode(stamp), as: UTF8.self)])
        try Self.setInteger("epoch", try Self.epoch(db) + 1, db)
        var changes = 0
        let rows = try Row.fetchAll(db, sql: "SELECT * FROM FRECORD WHERE ZONE = ?", arguments: [zone])
        for row in rows {
            var record = try Self.decode(row)
            let before = record
            record.fields = record.fields.filter { $0.value.stamp >= stamp }
            if let deletion = record.deletion, deletion < stamp { record.deletion = nil }
            if record.fields.isEmpty && record.deletion == nil {
                try db.execute(sql: "DELETE FROM FRECORD WHERE ZONE = ? AND NAME = ?", arguments: [zone, record.name])
                changes += 1
            } else if record != before {
                try Self.put(FolderMerge.Outcome(record: record, visible: true), db)
                changes += 1
            }
        }
        return changes
    }

    /// Every zone's erase stamp (for a baseline).
    static func erased(_ db: Database) throws -> [String: HLCStamp] {
        var result: [String: HLCStamp] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT KEY, VALUE FROM FSTATE WHERE KEY LIKE 'erased.%'") {
            let key: String = row["KEY"], value: String = row["VALUE"]
            result[String(key.dropFirst("erased.".count))] = try JSONDecoder().decode(HLCStamp.self, from: Data(value.utf8))
        }
        return result
    }

    // MARK: Imported logs

    /// Whether log `seq` of `peer` was imported (with this checksum, when given), or lies
    /// inside a baseline this index imported.
    func isImported(peer: String, seq: Int64, checksum: String? = nil, _ db: Database) throws -> Bool {
        if try isCovered(peer: peer, seq: seq, db) { return true }
        if let checksum {
            return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM FIMPORTED WHERE PEER = ? AND SEQ = ? AND CHECKSUM = ?)",
                                     arguments: [peer, seq, checksum]) ?? false
        }
        return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM FIMPORTED WHERE PEER = ? AND SEQ = ?)", arguments: [peer, seq]) ?? false
    }

    func isCovered(peer: String, seq: Int64, _ db: Database) throws -> Bool {
        seq <= (try Int64.fetchOne(db, sql: "SELECT SEQ FROM FCOVERED WHERE PEER = ?", arguments: [peer]) ?? 0)
    }

    /// Per peer, the highest number up to which every log was imported (or covered by a
    /// baseline): the device's receipt.
    func consumed(_ db: Database) throws -> [String: Int64] {
        var result = Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT PEER, SEQ FROM FCOVERED").map { ($0["PEER"] as String, $0["SEQ"] as Int64) })
        let imported = try Row.fetchAll(db, sql: "SELECT DISTINCT PEER, SEQ FROM FIMPORTED ORDER BY PEER, SEQ")
        for row in imported {
            let peer: String = row["PEER"], seq: Int64 = row["SEQ"]
            let current = result[peer] ?? 0
            if seq == current + 1 { result[peer] = seq }
        }
        return result
    }

    /// Remembers that every log of `peer` up to `seq` is inside the index (a baseline held
    /// them); the rows of those logs are no longer needed.
    func cover(peer: String, upTo seq: Int64, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO FCOVERED (PEER, SEQ) VALUES (?, ?) ON CONFLICT (PEER) DO UPDATE SET SEQ = MAX(SEQ, excluded.SEQ)
            """, arguments: [peer, seq])
        try db.execute(sql: "DELETE FROM FIMPORTED WHERE PEER = ? AND SEQ <= ?", arguments: [peer, seq])
    }

    // MARK: Changes

    /// The zone's records and tombstones changed after `since`, at most `limit`, in order.
    func changes(zone: String, since: Int64, limit: Int, _ db: Database) throws -> (records: [IndexedRecord], moreComing: Bool) {
        let rows = try Row.fetchAll(db, sql: "SELECT * FROM FRECORD WHERE ZONE = ? AND SEQ > ? ORDER BY SEQ LIMIT ?",
                                    arguments: [zone, since, limit + 1])
        let records = try rows.prefix(limit).map(Self.decode)
        return (records, rows.count > limit)
    }

    /// Every record and tombstone of every zone (for a baseline).
    func allRecords(_ db: Database) throws -> [IndexedRecord] {
        try Row.fetchAll(db, sql: "SELECT * FROM FRECORD ORDER BY ZONE, NAME").map(Self.decode)
    }
}
