import Foundation
import GRDB
import NimbusWire

/// One zone a mirrored store's records live in, and where its sync state is kept.
///
/// A store mirrors its **default zone** (``CloudContainerOptions/zoneName``, state in
/// `ANIMBUSCLOUDSTATE` as before sharing existed) and any number of **other zones**: in a
/// private store, the zones its objects were shared from (``CloudContainer/share(_:to:)``
/// moves objects into a zone of their own, as `NSPersistentCloudKitContainer` does); in a
/// shared store, every zone other users shared with this one. Each other zone has a row in
/// `ANIMBUSCLOUDZONE` (its token and permission), and its objects a row in
/// `ANIMBUSCLOUDPLACEMENT`; objects without one are in the default zone (decision 0070).
struct ZoneLane: Sendable, Hashable, CustomStringConvertible {
    /// The zone on the server (with its owner when another user owns it).
    var zoneID: ZoneID
    /// The zone's key in `ANIMBUSCLOUDZONE` and `ANIMBUSCLOUDPLACEMENT`; `nil` for the
    /// store's default zone.
    var key: String?

    /// The store's default zone.
    static func defaultZone(_ zoneID: ZoneID) -> ZoneLane { ZoneLane(zoneID: zoneID, key: nil) }

    /// Another zone.
    static func other(_ zoneID: ZoneID) -> ZoneLane { ZoneLane(zoneID: zoneID, key: key(of: zoneID)) }

    /// A zone's key: `owner/zone` (the owner empty for the caller's own zones).
    static func key(of zoneID: ZoneID) -> String { "\(zoneID.ownerName ?? "")/\(zoneID.zoneName)" }

    var isDefault: Bool { key == nil }

    var description: String {
        zoneID.ownerName.map { "\(zoneID.zoneName) of \($0)" } ?? zoneID.zoneName
    }

    // MARK: State

    /// The change token the zone's next fetch starts from.
    func token(_ db: Database) throws -> ChangeToken? {
        guard let key else { return String.fromDatabaseValue(try SyncMetadata.state(.zoneToken, db)).map(ChangeToken.init(rawValue:)) }
        return try String.fetchOne(db, sql: "SELECT ZTOKEN FROM ANIMBUSCLOUDZONE WHERE ZKEY = ?", arguments: [key]).map(ChangeToken.init(rawValue:))
    }

    func setToken(_ token: ChangeToken?, _ db: Database) throws {
        guard let key else { return try SyncMetadata.setState(.zoneToken, token?.rawValue, db) }
        try db.execute(sql: "UPDATE ANIMBUSCLOUDZONE SET ZTOKEN = ? WHERE ZKEY = ?", arguments: [token?.rawValue, key])
    }

    /// Whether the zone is being fetched again from the start (its token expired).
    func isRefetching(_ db: Database) throws -> Bool {
        guard let key else { return Bool.fromDatabaseValue(try SyncMetadata.state(.refetching, db)) ?? false }
        return try Bool.fetchOne(db, sql: "SELECT ZREFETCHING FROM ANIMBUSCLOUDZONE WHERE ZKEY = ?", arguments: [key]) ?? false
    }

    func setRefetching(_ refetching: Bool, _ db: Database) throws {
        guard let key else { return try SyncMetadata.setState(.refetching, refetching ? true : nil, db) }
        try db.execute(sql: "UPDATE ANIMBUSCLOUDZONE SET ZREFETCHING = ? WHERE ZKEY = ?", arguments: [refetching, key])
    }

    /// SQL that holds for the rows of a table with a `ZZONE` column that belong to this zone.
    var zoneColumnSQL: String {
        key.map { "ZZONE = '\($0.replacingOccurrences(of: "'", with: "''"))'" } ?? "ZZONE IS NULL"
    }

    // MARK: Membership

    /// SQL that holds for the objects of this zone, given the entity and key columns of a
    /// table (`ZENTITY`, `ZPK`): the default zone's objects have no placement.
    func holdsSQL(entity: String = "ZENTITY", primaryKey: String = "ZPK") -> String {
        if let key {
            return "EXISTS (SELECT 1 FROM ANIMBUSCLOUDPLACEMENT pl WHERE pl.ZENTITY = \(entity) AND pl.ZPK = \(primaryKey) AND pl.ZZONE = '\(key.replacingOccurrences(of: "'", with: "''"))')"
        }
        return "NOT EXISTS (SELECT 1 FROM ANIMBUSCLOUDPLACEMENT pl WHERE pl.ZENTITY = \(entity) AND pl.ZPK = \(primaryKey))"
    }

    /// Whether the object is in this zone.
    func holds(entity: Int, primaryKey: Int64, _ db: Database) throws -> Bool {
        try Placement.zone(entity: entity, primaryKey: primaryKey, db) == key
    }

    /// Records an object (new here from this zone's changes) as this zone's.
    func place(entity: Int, primaryKey: Int64, _ db: Database) throws {
        try Placement.place(entity: entity, primaryKey: primaryKey, in: key, db)
    }
}
