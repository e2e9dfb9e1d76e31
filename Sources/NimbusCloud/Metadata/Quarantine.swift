import Foundation
import GRDB
import struct NimbusWire.Record
import NimbusWire

/// A record this device could not apply, set aside with its reason so that the rest of its
/// page applies and the change token moves on (`ANIMBUSCLOUDQUARANTINE`).
///
/// A record of an entity, field or relationship this model doesn't know, a value its model
/// refuses (another type, a failed validation), a uniqueness conflict, a deletion a `.deny`
/// rule refuses: each is one record's state, never a page's. Quarantined records are tried
/// again after a model upgrade and after an import that changed something; a newer version
/// of the record that applies takes it out.
public struct QuarantinedRecord: Sendable, Codable, Hashable {
    /// The record's name.
    public var recordName: String
    /// The record's type (`CD_<entity>`, `CDMR`; `deletion` for a refused deletion).
    public var recordType: String
    /// Why it could not be applied.
    public var reason: String
    /// When it was first set aside.
    public var firstSeen: Date
    /// How many times it was tried again and failed.
    public var retries: Int
}

enum Quarantine {
    /// The record type of a quarantined deletion.
    static let deletionType = "deletion"

    static func prepare(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS ANIMBUSCLOUDQUARANTINE (ZRECORDNAME TEXT PRIMARY KEY, ZRECORDTYPE TEXT NOT NULL,
                ZREASON TEXT NOT NULL, ZRECORD BLOB, ZFIRSTSEEN REAL NOT NULL, ZRETRIES INTEGER NOT NULL DEFAULT 0)
            """)
    }

    /// Sets a record aside (again: its reason is updated and its retries counted).
    static func add(_ record: Record, reason: String, zone: String? = nil, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO ANIMBUSCLOUDQUARANTINE (ZRECORDNAME, ZRECORDTYPE, ZREASON, ZRECORD, ZFIRSTSEEN, ZZONE) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (ZRECORDNAME) DO UPDATE SET ZREASON = excluded.ZREASON, ZRECORD = excluded.ZRECORD,
                ZRECORDTYPE = excluded.ZRECORDTYPE, ZRETRIES = ZRETRIES + 1
            """, arguments: [record.recordName, record.recordType, reason, try WireJSONWriter.encode(record), Date().timeIntervalSince1970, zone])
    }

    /// Sets a deletion aside.
    static func addDeletion(_ name: String, reason: String, zone: String? = nil, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO ANIMBUSCLOUDQUARANTINE (ZRECORDNAME, ZRECORDTYPE, ZREASON, ZRECORD, ZFIRSTSEEN, ZZONE) VALUES (?, ?, ?, NULL, ?, ?)
            ON CONFLICT (ZRECORDNAME) DO UPDATE SET ZREASON = excluded.ZREASON, ZRECORD = NULL,
                ZRECORDTYPE = excluded.ZRECORDTYPE, ZRETRIES = ZRETRIES + 1
            """, arguments: [name, deletionType, reason, Date().timeIntervalSince1970, zone])
    }

    static func remove(_ names: some Sequence<String>, _ db: Database) throws {
        // Most pages meet an empty quarantine: one look instead of a statement per record.
        guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM ANIMBUSCLOUDQUARANTINE)") ?? false else { return }
        let statement = try db.cachedStatement(sql: "DELETE FROM ANIMBUSCLOUDQUARANTINE WHERE ZRECORDNAME = ?")
        for name in names { try statement.execute(arguments: [name]) }
    }

    static func count(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM ANIMBUSCLOUDQUARANTINE") ?? 0
    }

    static func list(_ db: Database) throws -> [QuarantinedRecord] {
        try Row.fetchAll(db, sql: "SELECT ZRECORDNAME, ZRECORDTYPE, ZREASON, ZFIRSTSEEN, ZRETRIES FROM ANIMBUSCLOUDQUARANTINE ORDER BY ZFIRSTSEEN, ZRECORDNAME")
            .map { row in
                QuarantinedRecord(recordName: row[0], recordType: row[1], reason: row[2],
                                  firstSeen: Date(timeIntervalSince1970: row[3]), retries: row[4])
            }
    }

    /// What to try again: the records, and the names of the deletions.
    /// - Parameter zone: Only those from this zone (`ZoneLane/zoneColumnSQL`); `nil`: all.
    static func pending(zone: String? = nil, _ db: Database) throws -> (records: [Record], deletions: [String]) {
        var records: [Record] = []
        var deletions: [String] = []
        let filter = zone.map { "WHERE " + $0 } ?? ""
        for row in try Row.fetchAll(db, sql: "SELECT ZRECORDNAME, ZRECORD FROM ANIMBUSCLOUDQUARANTINE \(filter) ORDER BY ZFIRSTSEEN, ZRECORDNAME") {
            if let data = row[1] as Data? { records.append(try WireCoding.record(from: data)) } else { deletions.append(row[0]) }
        }
        return (records, deletions)
    }
}

/// What a model upgrade made this device able to apply: properties and entities the
/// previous model did not know. Fields of known records that arrived before the upgrade are
/// in their ancestors; records of unknown entities and relationships are in quarantine.
struct UpgradeReplay: Codable, Equatable, Sendable {
    /// Entity name → newly known properties.
    var properties: [String: Set<String>] = [:]
    /// Newly known entities.
    var entities: Set<String> = []
    /// Whether quarantined records are to be tried again.
    var retryQuarantine = false

    var isEmpty: Bool { properties.isEmpty && entities.isEmpty && !retryQuarantine }

    static func stored(_ db: Database) throws -> UpgradeReplay? {
        guard let text = String.fromDatabaseValue(try SyncMetadata.state(.replay, db)) else { return nil }
        do { return try JSONDecoder().decode(UpgradeReplay.self, from: Data(text.utf8)) } catch {
            throw CloudError(.server, "the store's upgrade replay state is damaged (\(error))")
        }
    }

    func save(_ db: Database) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try SyncMetadata.setState(.replay, isEmpty ? nil : String(decoding: try encoder.encode(self), as: UTF8.self), db)
    }
}
