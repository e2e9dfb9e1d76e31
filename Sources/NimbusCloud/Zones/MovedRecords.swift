import Foundation
import GRDB
import NimbusWire
import struct NimbusWire.Record

/// Objects that sharing moved out of the default zone, as the owner's other devices learn
/// of it (decision 0072).
///
/// Sharing moves an object's record `X` into the share's zone `Z` under the name `X@Z`
/// (``name(_:in:)``), and leaves in the default zone, in place of a deletion, a *marker*: `X`
/// saved with the single field ``field`` naming `Z`. A deletion would make the owner's other
/// devices delete their copy — and with it, through the delete rules, what they added to it
/// and had not sent yet — before they see the zone. Instead, whichever comes first moves
/// their copy, keeping its object ID, its unsent edits and its relationships:
/// - the marker: the copy of `X` is renamed `X@Z` and placed in `Z` (its unsent edits go there);
/// - the record `X@Z` in `Z`: the copy of `X` takes that name (it is adopted, not duplicated).
///
/// A marker never makes an object (a new device ignores it), and references to `X` from
/// records not moved resolve to `X@Z`.
enum MovedRecords {
    /// The marker's field: the zone the record moved to.
    static let field = "CD_movedTo"

    /// The name of record `name` moved into the zone named `zone`.
    static func name(_ name: String, in zone: String) -> String { "\(name)@\(zone)" }

    /// The name a record of zone `zone` had before it was moved there (`nil`: not moved).
    static func origin(of name: String, in zone: String) -> String? {
        let suffix = "@" + zone
        guard name.hasSuffix(suffix), name.count > suffix.count else { return nil }
        return String(name.dropLast(suffix.count))
    }

    /// The zone a marker names (`nil`: the record is not a marker).
    static func zone(ofMarker record: Record) -> String? {
        guard case let .string(zone)? = record.fields[field]?.value else { return nil }
        return zone
    }

    static func prepare(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS ANIMBUSCLOUDMARKER (ZRECORDNAME TEXT PRIMARY KEY, ZTYPE TEXT NOT NULL, ZZONE TEXT NOT NULL,
                ZTIME INTEGER NOT NULL, ZDEVICE TEXT NOT NULL)
            """)
    }

    // MARK: The device that shares

    /// Renames a moved object's record and queues the marker of its old name.
    static func move(_ row: SyncMetadata.RecordRow, recordType: String, to zone: ZoneID, stamp: HLCStamp, _ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO ANIMBUSCLOUDMARKER (ZRECORDNAME, ZTYPE, ZZONE, ZTIME, ZDEVICE) VALUES (?, ?, ?, ?, ?)",
                       arguments: [row.recordName, recordType, zone.zoneName, stamp.time, stamp.device])
        try rename(row, to: name(row.recordName, in: zone.zoneName), db)
        // A deletion of the old name, queued before, would delete the other devices' copies.
        try db.execute(sql: "DELETE FROM ANIMBUSCLOUDDELETION WHERE ZRECORDNAME = ? AND ZZONE IS NULL", arguments: [row.recordName])
    }

    /// Sends the queued markers to the default zone (before its other changes).
    static func sendMarkers(_ mirror: StoreMirror) async throws {
        let queued = try mirror.store.readTransaction { db in
            try Row.fetchAll(db, sql: "SELECT ZRECORDNAME, ZTYPE, ZZONE, ZTIME, ZDEVICE FROM ANIMBUSCLOUDMARKER LIMIT ?",
                             arguments: [ModifyRecordsRequest.maximumItems])
        }
        guard !queued.isEmpty else { return }
        let markers = queued.map { row in
            Record(recordName: row[0], recordType: row[1],
                   fields: [field: Field(.string(row[2]), stamp: HLCStamp(time: row[3], device: row[4]))])
        }
        let response = try await mirror.transport.modify(ModifyRecordsRequest(saves: markers, savePolicy: .changedKeys),
                                                         in: ZoneID(zoneName: mirror.zoneID.zoneName))
        // Saved, or refused for good (a record deleted since: nothing to mark): done either way.
        let done = response.results.filter { $0.status != .failed || $0.error.map { !$0.code.isRetryable } ?? true }.map(\.recordName)
        try mirror.store.writeTransaction { db in
            for name in done { try db.execute(sql: "DELETE FROM ANIMBUSCLOUDMARKER WHERE ZRECORDNAME = ?", arguments: [name]) }
        }
        if done.count < queued.count { throw CloudError(.server, "\(queued.count - done.count) marker(s) of shared objects could not be saved; retried") }
    }

    // MARK: The owner's other devices

    /// Applies markers that arrived in the default zone: each local copy of a marked record
    /// moves to its zone under its new name (a marker of a record this device doesn't hold
    /// does nothing).
    static func apply(markers: [Record], _ db: Database) throws {
        for marker in markers {
            guard let zone = zone(ofMarker: marker), let row = try SyncMetadata.record(named: marker.recordName, db) else { continue }
            let zoneID = ZoneID(zoneName: zone)
            try Placement.addZone(zoneID, permission: .readWrite, shareID: nil, db)
            try rename(row, to: name(row.recordName, in: zone), db)
            try Placement.place(entity: row.entity, primaryKey: row.primaryKey, in: ZoneLane.key(of: zoneID), db)
            // A local deletion not sent yet goes to the new name.
            try db.execute(sql: "UPDATE ANIMBUSCLOUDDELETION SET ZRECORDNAME = ?, ZZONE = ? WHERE ZRECORDNAME = ? AND ZZONE IS NULL",
                           arguments: [name(row.recordName, in: zone), ZoneLane.key(of: zoneID), row.recordName])
        }
    }

    /// The local record a record arriving in zone `zone` was moved from, if this device holds it.
    static func adoptable(_ name: String, in zone: String, _ db: Database) throws -> SyncMetadata.RecordRow? {
        guard let origin = origin(of: name, in: zone) else { return nil }
        return try SyncMetadata.record(named: origin, db)
    }

    /// Gives an object's record a new name, never sent (no change tag): the old one is not
    /// deleted (its marker stands for it). The values it last confirmed keep their stamps
    /// (an older value arriving under the new name does not replace a newer one here), and
    /// go out again under the new name with those stamps: the server keeps the later stamp of
    /// each field, so this device's edits that reached only the old record are not lost.
    static func rename(_ row: SyncMetadata.RecordRow, to newName: String, _ db: Database) throws {
        try db.execute(sql: "DELETE FROM ANIMBUSCLOUDRECORD WHERE ZRECORDNAME = ?", arguments: [row.recordName])
        try FirstSaves.forget(row.recordName, db)
        guard try SyncMetadata.record(named: newName, db) == nil else { return }
        try db.execute(sql: "INSERT INTO ANIMBUSCLOUDRECORD (ZENTITY, ZPK, ZRECORDNAME, ZANCESTOR) VALUES (?, ?, ?, ?)",
                       arguments: [row.entity, row.primaryKey, newName, try row.ancestor.map { try WireJSONWriter.encode($0) }])
        try SyncMetadata.addPendingFields(confirmedStamps(row), entity: row.entity, primaryKey: row.primaryKey, db)
    }

    /// The stamps of the fields a record row last confirmed, by property (as pending fields
    /// name them).
    static func confirmedStamps(_ row: SyncMetadata.RecordRow) -> [String: HLCStamp] {
        guard let ancestor = row.ancestor else { return [:] }
        var stamps: [String: HLCStamp] = [:]
        for (name, field) in ancestor.fields {
            if name == MirroredModel.entityNameField { stamps[PendingFields.entityKey] = field.stamp; continue }
            guard name.hasPrefix("CD_") else { continue }
            let property = MirroredModel.property(ofField: name)
            stamps[property] = max(stamps[property] ?? field.stamp, field.stamp)
        }
        return stamps
    }

    /// The records moved from names in `names`, by old name (references to an old name
    /// resolve to the moved record).
    static func moved(from names: some Collection<String>, _ db: Database) throws -> [String: SyncMetadata.RecordRow] {
        var found: [String: SyncMetadata.RecordRow] = [:]
        for name in names {
            let statement = try db.cachedStatement(sql: """
                SELECT ZENTITY, ZPK, ZRECORDNAME FROM ANIMBUSCLOUDRECORD WHERE ZRECORDNAME > ? AND ZRECORDNAME < ? LIMIT 1
                """)
            if let row = try Row.fetchOne(statement, arguments: [name + "@", name + "@\u{10FFFF}"]),
               let full = try SyncMetadata.record(named: row[2], db) {
                found[name] = full
            }
        }
        return found
    }
}
