import Foundation
import GRDB
import struct NimbusWire.Record
import Nimbus
import NimbusWire

/// Reads the store's persistent history since the capture cursor and records, per object,
/// which fields changed and when (the coalesced outbox), every deletion, and every
/// many-to-many membership change. Transactions by the importer's author are skipped: what
/// came from the cloud does not go back.
///
/// Runs in one write transaction: the outbox, the clock and the cursor move together, and
/// the cursor is registered as a history consumer so that a purge never passes it.
struct ChangeCapture {
    let store: PersistentStore
    let mirrored: MirroredModel
    let importAuthor: String
    let deviceID: String
    /// The server whose clock stamps follow (see ``ServerClock``).
    var server: URL?

    static let consumerName = "NimbusCloud.exporter"

    /// Captures everything after the cursor; returns how many changes were captured.
    @discardableResult
    func capture(_ db: Database) throws -> Int {
        let offset = try clockOffset(db)
        try restampFuture(offset: offset, db)
        let last = try store.lastHistoryTransaction(db)
        guard let cursor = Int64.fromDatabaseValue(try SyncMetadata.state(.historyCursor, db)) else {
            // First setup: everything already in the store is new to the cloud.
            let count = try seed(at: Date().addingTimeInterval(offset), db)
            try advance(to: last, db)
            return count
        }
        guard cursor < last else { return 0 }
        // Only the importer's own pages since the cursor (a download): nothing to read.
        if try !PageApplier.hasUncapturedEdits(after: cursor, author: importAuthor, db) {
            try advance(to: last, db)
            return 0
        }
        var clock = try HybridLogicalClock.load(db)
        var count = 0
        let now = Date().addingTimeInterval(offset)
        for transaction in try store.historyTransactions(after: cursor, db) where transaction.author != importAuthor {
            // Saved at the device's time, stamped at the server's; a save that claims to be
            // later than now was made while the device's clock ran ahead: it happened by now.
            let stamp = HLCStamp(time: clock.tick(at: min(transaction.timestamp.addingTimeInterval(offset), now)), device: deviceID)
            for change in transaction.changes ?? [] {
                try record(change, stamp: stamp, db)
                count += 1
            }
        }
        try clock.save(db)
        try advance(to: last, db)
        return count
    }

    private func clockOffset(_ db: Database) throws -> TimeInterval {
        if let server, let offset = ServerClock.offset(for: server) {
            if try SyncMetadata.doubleState(.clockOffset, db) != offset { try SyncMetadata.setState(.clockOffset, offset, db) }
            return offset
        }
        return try SyncMetadata.doubleState(.clockOffset, db) ?? 0
    }

    /// When the clock ran ahead of the server's (a device clock set days ahead, corrected
    /// since, or a past offset), the clock comes back to the server's time and every unsent
    /// edit, deletion and membership stamped in the future is stamped again: the server would
    /// refuse it, and it would win every merge until the real time caught up.
    private func restampFuture(offset: TimeInterval, _ db: Database) throws {
        var clock = try HybridLogicalClock.load(db)
        let now = Date().addingTimeInterval(offset)
        let limit = HybridLogicalClock.reading(at: now.addingTimeInterval(ServerClock.futureBound))
        guard clock.last > limit else { return }
        clock.reset(to: now)
        var restamped = 0
        for row in try Row.fetchAll(db, sql: "SELECT ZENTITY, ZPK, ZFIELDS FROM ANIMBUSCLOUDPENDING") {
            let fields = try WireCoding.stamps(from: row[2])
            guard fields.values.contains(where: { $0.time > limit }) else { continue }
            let stamp = HLCStamp(time: clock.tick(at: now), device: deviceID)
            try SyncMetadata.setPendingFields(fields.mapValues { $0.time > limit ? stamp : $0 }, entity: row[0], primaryKey: row[1], db)
            restamped += 1
        }
        for row in try Row.fetchAll(db, sql: "SELECT ZRECORDNAME FROM ANIMBUSCLOUDDELETION WHERE ZTIME > ?", arguments: [limit]) {
            let name: String = row[0]
            try db.execute(sql: "UPDATE ANIMBUSCLOUDDELETION SET ZTIME = ?, ZDEVICE = ? WHERE ZRECORDNAME = ?",
                           arguments: [clock.tick(at: now), deviceID, name])
            restamped += 1
        }
        let links = try Int.fetchOne(db, sql: "SELECT count(*) FROM ANIMBUSCLOUDLINK WHERE ZPENDING = 1 AND ZTIME > ?", arguments: [limit]) ?? 0
        if links > 0 {
            try db.execute(sql: "UPDATE ANIMBUSCLOUDLINK SET ZTIME = ?, ZDEVICE = ? WHERE ZPENDING = 1 AND ZTIME > ?",
                           arguments: [clock.tick(at: now), deviceID, limit])
            restamped += links
        }
        try clock.save(db)
        _ = restamped
    }

    private func advance(to transaction: Int64, _ db: Database) throws {
        try SyncMetadata.setState(.historyCursor, transaction, db)
        try store.setHistoryConsumer(Self.consumerName, at: transaction, db)
    }

    /// Marks every stored object of a mirrored entity as new, with its memberships.
    func seed(at date: Date, _ db: Database) throws -> Int {
        var clock = try HybridLogicalClock.load(db)
        let stamp = HLCStamp(time: clock.tick(at: date), device: deviceID)
        try clock.save(db)
        var count = 0
        for root in Set(mirrored.entities.map { ObjectIdentifier($0.rootEntity) }) {
            guard let entity = mirrored.entities.first(where: { ObjectIdentifier($0.rootEntity) == root })?.rootEntity else { continue }
            for id in try store.allObjectIDs(inHierarchyOf: entity, db) where mirrored.roles[id.entity.name] != nil {
                try recordInsert(id, stamp: stamp, db)
                count += 1
            }
        }
        return count
    }

    private func record(_ change: PersistentHistoryChange, stamp: HLCStamp, _ db: Database) throws {
        let id = change.changedObjectID
        guard mirrored.roles[id.entity.name] != nil else { return }
        switch change.changeType {
        case .insert:
            try recordInsert(id, stamp: stamp, db)
        case .update:
            try recordUpdate(id, properties: change.updatedProperties ?? [], stamp: stamp, db)
        case .delete:
            try recordDeletion(id, stamp: stamp, db)
        }
    }

    /// Records edits of `properties` of an object (memberships compared with those on record).
    func recordUpdate(_ id: ManagedObjectID, properties: Set<String>, stamp: HLCStamp, _ db: Database) throws {
        guard let roles = mirrored.roles[id.entity.name] else { return }
        var fields: [String: HLCStamp] = [:]
        for name in properties {
            switch roles[name] {
            case .attribute?, .toOne?: fields[name] = stamp
            case let .manyToMany(key, isFirst)?: try recordMembership(of: id, relationship: name, key: key, isFirst: isFirst, stamp: stamp, db)
            case .carriedByInverse?, nil: continue
            }
        }
        if !fields.isEmpty {
            try SyncMetadata.addPendingFields(fields, entity: id.entity.entityNumber, primaryKey: id.primaryKey, db)
        }
    }

    /// Records an object as new to the cloud: every field, and its memberships.
    func recordInsert(_ id: ManagedObjectID, stamp: HLCStamp, _ db: Database) throws {
        guard let roles = mirrored.roles[id.entity.name] else { return }
        var fields: [String: HLCStamp] = [PendingFields.entityKey: stamp]
        for (name, role) in roles {
            switch role {
            case .attribute, .toOne: fields[name] = stamp
            case let .manyToMany(key, isFirst): try recordMembership(of: id, relationship: name, key: key, isFirst: isFirst, stamp: stamp, db)
            case .carriedByInverse: continue
            }
        }
        try SyncMetadata.addPendingFields(fields, entity: id.entity.entityNumber, primaryKey: id.primaryKey, db)
    }

    private func recordDeletion(_ id: ManagedObjectID, stamp: HLCStamp, _ db: Database) throws {
        let entity = id.entity.entityNumber
        // The deletion goes to the zone the object was in (see ``ZoneLane``).
        let zone = try Placement.zone(entity: entity, primaryKey: id.primaryKey, db)
        if let row = try SyncMetadata.record(entity: entity, primaryKey: id.primaryKey, db) {
            try db.execute(sql: "INSERT OR REPLACE INTO ANIMBUSCLOUDDELETION (ZRECORDNAME, ZENTITY, ZTIME, ZDEVICE, ZZONE) VALUES (?, ?, ?, ?, ?)",
                           arguments: [row.recordName, entity, stamp.time, stamp.device, zone])
            try SyncMetadata.removeRecord(named: row.recordName, db)
        }
        if zone != nil { try Placement.place(entity: entity, primaryKey: id.primaryKey, in: nil, db) }
        try SyncMetadata.setPendingFields([:], entity: entity, primaryKey: id.primaryKey, db)
        try db.execute(sql: """
            DELETE FROM ANIMBUSCLOUDLINK WHERE (ZFIRSTENTITY = ?1 AND ZFIRSTPK = ?2) OR (ZSECONDENTITY = ?1 AND ZSECONDPK = ?2)
            """, arguments: [entity, id.primaryKey])
    }

    /// Compares a many-to-many relationship's members with the memberships on record and
    /// records each addition and removal (pending until the server confirms it).
    private func recordMembership(of id: ManagedObjectID, relationship: String, key: String, isFirst: Bool,
                                  stamp: HLCStamp, _ db: Database) throws {
        let current = Set(try store.destinations(of: id, relationship: relationship, db).map { ObjectKey($0) })
        let this = ObjectKey(id)
        let (mine, theirs) = isFirst ? ("ZFIRST", "ZSECOND") : ("ZSECOND", "ZFIRST")
        var linked: Set<ObjectKey> = []
        let rows = try Row.fetchAll(db, sql: """
            SELECT \(theirs)ENTITY, \(theirs)PK FROM ANIMBUSCLOUDLINK
            WHERE ZRELATIONSHIP = ? AND \(mine)ENTITY = ? AND \(mine)PK = ? AND ZLINKED = 1
            """, arguments: [key, this.entity, this.primaryKey])
        for row in rows { linked.insert(ObjectKey(entity: row[0], primaryKey: row[1])) }
        for added in current.subtracting(linked) {
            try LinkRow.set(key: key, first: isFirst ? this : added, second: isFirst ? added : this,
                            linked: true, stamp: stamp, pending: true, db)
        }
        for removed in linked.subtracting(current) {
            try LinkRow.set(key: key, first: isFirst ? this : removed, second: isFirst ? removed : this,
                            linked: false, stamp: stamp, pending: true, db)
        }
    }
}

/// An object's key in metadata tables: its entity number and primary key.
struct ObjectKey: Hashable, Sendable {
    var entity: Int
    var primaryKey: Int64

    init(entity: Int, primaryKey: Int64) {
        self.entity = entity
        self.primaryKey = primaryKey
    }

    init(_ id: ManagedObjectID) {
        self.init(entity: id.entity.entityNumber, primaryKey: id.primaryKey)
    }
}

/// Keys with a special meaning in an object's pending fields.
enum PendingFields {
    /// The record's existence and `CD_entityName` (set when the object was inserted).
    static let entityKey = "@entity"
}

/// One many-to-many membership in `ANIMBUSCLOUDLINK`.
enum LinkRow {
    static func set(key: String, first: ObjectKey, second: ObjectKey, linked: Bool, stamp: HLCStamp, pending: Bool, _ db: Database) throws {
        try db.execute(sql: """
            INSERT OR REPLACE INTO ANIMBUSCLOUDLINK (ZRELATIONSHIP, ZFIRSTENTITY, ZFIRSTPK, ZSECONDENTITY, ZSECONDPK,
                ZLINKED, ZTIME, ZDEVICE, ZPENDING) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, arguments: [key, first.entity, first.primaryKey, second.entity, second.primaryKey, linked, stamp.time, stamp.device, pending])
    }
}
