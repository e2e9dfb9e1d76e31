import Foundation
import GRDB
import NimbusWire

/// Which zone each object of a mirrored store is in, and the store's zones besides its
/// default one (see ``ZoneLane``).
///
/// - `ANIMBUSCLOUDZONE`: per zone its owner, change token, whether it is being fetched again,
///   the permission this user holds in it and its share's identifier.
/// - `ANIMBUSCLOUDPLACEMENT`: per object not in the default zone, its zone's key. The table is
///   empty in a store that never shared, so every query of the default zone costs what it
///   did before sharing existed.
/// - `ANIMBUSCLOUDDELETION.ZZONE`: the zone a pending deletion goes to (`NULL`: the default);
///   `ANIMBUSCLOUDPARKED.ZZONE` and `ANIMBUSCLOUDQUARANTINE.ZZONE`: the zone a record came from.
enum Placement {
    static func prepare(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS ANIMBUSCLOUDZONE (ZKEY TEXT PRIMARY KEY, ZNAME TEXT NOT NULL, ZOWNER TEXT, ZTOKEN TEXT,
                ZREFETCHING INTEGER NOT NULL DEFAULT 0, ZPERMISSION TEXT NOT NULL DEFAULT 'readWrite', ZSHAREID TEXT);
            CREATE TABLE IF NOT EXISTS ANIMBUSCLOUDPLACEMENT (ZENTITY INTEGER NOT NULL, ZPK INTEGER NOT NULL, ZZONE TEXT NOT NULL,
                PRIMARY KEY (ZENTITY, ZPK));
            CREATE INDEX IF NOT EXISTS ANIMBUSCLOUDPLACEMENT_ZONE ON ANIMBUSCLOUDPLACEMENT (ZZONE);
            """)
        // Deletions, parked and quarantined records name their zone (NULL: the default one).
        for table in ["ANIMBUSCLOUDDELETION", "ANIMBUSCLOUDPARKED", "ANIMBUSCLOUDQUARANTINE"] {
            let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\(table))").map { $0["name"] as String }
            if !columns.contains("ZZONE") { try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN ZZONE TEXT") }
        }
    }

    // MARK: Objects

    /// The key of the zone an object is in (`nil`: the default zone).
    static func zone(entity: Int, primaryKey: Int64, _ db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT ZZONE FROM ANIMBUSCLOUDPLACEMENT WHERE ZENTITY = ? AND ZPK = ?", arguments: [entity, primaryKey])
    }

    /// Puts an object in a zone (`nil`: the default zone).
    static func place(entity: Int, primaryKey: Int64, in zone: String?, _ db: Database) throws {
        if let zone {
            try db.execute(sql: "INSERT OR REPLACE INTO ANIMBUSCLOUDPLACEMENT (ZENTITY, ZPK, ZZONE) VALUES (?, ?, ?)",
                           arguments: [entity, primaryKey, zone])
        } else {
            try db.execute(sql: "DELETE FROM ANIMBUSCLOUDPLACEMENT WHERE ZENTITY = ? AND ZPK = ?", arguments: [entity, primaryKey])
        }
    }

    /// Whether any object is outside the default zone (a store that never shared: no).
    static func isEmpty(_ db: Database) throws -> Bool {
        try !(Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM ANIMBUSCLOUDPLACEMENT)") ?? false)
    }

    // MARK: Zones

    /// A zone of the store besides its default one.
    struct ZoneRow: Sendable, Hashable {
        var zoneID: ZoneID
        var permission: SharePermission
        var shareID: String?
        var lane: ZoneLane { .other(zoneID) }
    }

    static func zones(_ db: Database) throws -> [ZoneRow] {
        try Row.fetchAll(db, sql: "SELECT ZNAME, ZOWNER, ZPERMISSION, ZSHAREID FROM ANIMBUSCLOUDZONE ORDER BY ZKEY").map { row in
            ZoneRow(zoneID: ZoneID(zoneName: row[0], ownerName: row[1]),
                    permission: SharePermission(rawValue: row[2]) ?? .readOnly, shareID: row[3])
        }
    }

    static func zone(key: String, _ db: Database) throws -> ZoneRow? {
        try zones(db).first { $0.lane.key == key }
    }

    /// Adds a zone (or updates its permission and share).
    static func addZone(_ zoneID: ZoneID, permission: SharePermission, shareID: String?, _ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO ANIMBUSCLOUDZONE (ZKEY, ZNAME, ZOWNER, ZPERMISSION, ZSHAREID) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (ZKEY) DO UPDATE SET ZPERMISSION = excluded.ZPERMISSION, ZSHAREID = coalesce(excluded.ZSHAREID, ZSHAREID)
            """, arguments: [ZoneLane.key(of: zoneID), zoneID.zoneName, zoneID.ownerName, permission.rawValue, shareID])
    }

    /// Forgets a zone and the placement of its objects (their rows are the caller's).
    static func removeZone(key: String, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM ANIMBUSCLOUDZONE WHERE ZKEY = ?", arguments: [key])
        try db.execute(sql: "DELETE FROM ANIMBUSCLOUDPARKED WHERE ZZONE = ?", arguments: [key])
        try db.execute(sql: "DELETE FROM ANIMBUSCLOUDQUARANTINE WHERE ZZONE = ?", arguments: [key])
        try db.execute(sql: "DELETE FROM ANIMBUSCLOUDPLACEMENT WHERE ZZONE = ?", arguments: [key])
        // Deletions never sent leave no tombstone: the zone, fetched again (its edits refused),
        // brings those records back.
        try db.execute(sql: """
            DELETE FROM ANIMBUSCLOUDTOMBSTONE WHERE ZRECORDNAME IN (SELECT ZRECORDNAME FROM ANIMBUSCLOUDDELETION WHERE ZZONE = ?)
            """, arguments: [key])
        try db.execute(sql: "DELETE FROM ANIMBUSCLOUDDELETION WHERE ZZONE = ?", arguments: [key])
    }
}
