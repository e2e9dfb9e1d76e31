import Foundation
import GRDB
import Nimbus
import NimbusWire

/// Which zones a mirrored store syncs, kept up to date with the server (see ``ZoneLane``).
///
/// A private store syncs its default zone and the zones its objects were shared from (on
/// any of the user's devices: they are found in the private database's zone list by their
/// name's prefix). A shared store syncs every zone other users shared with this user and
/// the user accepted; a zone that is no longer shared with them (unshared, removed, left)
/// disappears from the store with its objects.
struct ZoneDirectory {
    let mirror: StoreMirror

    /// The prefix of the zones that shares are made in.
    static let shareZonePrefix = "com.nimbus.share."

    var isSharedStore: Bool { mirror.options.databaseScope == .shared }

    /// The zones to sync now: `[nil]` for a private store that never shared (its default
    /// zone, with no filtering at all), otherwise one lane per zone.
    func lanes() throws -> [ZoneLane?] {
        let zones = try mirror.store.readTransaction { db in try Placement.zones(db) }
        if isSharedStore { return zones.map(\.lane) }
        if zones.isEmpty { return [nil] }
        return [ZoneLane.defaultZone(mirror.zoneID)] + zones.map(\.lane)
    }

    /// Asks the server which zones there are; adds the new ones and removes those gone.
    /// Returns the zones removed (their objects went with them).
    @discardableResult
    func discover() async throws -> [ZoneLane] {
        let known = try mirror.store.readTransaction { db in try Placement.zones(db) }
        var current: [ZoneID: (SharePermission, String?)] = [:]
        if isSharedStore {
            let me = try await mirror.transport.account().userName
            guard let transport = mirror.transport as? HTTPTransport else { return [] }
            for share in try await transport.listShares().participating {
                guard let mine = share.participants.first(where: { $0.userName == me }), mine.state == .accepted else { continue }
                current[share.zoneID] = (mine.permission, share.shareID)
            }
        } else {
            guard let transport = mirror.transport as? HTTPTransport else { return [] }
            // Which of them are shared now (shared from another device of this user, or no
            // longer shared): `isShared` answers alike on every device.
            var shares: [String: String] = [:]
            for share in try await transport.listShares().owned { shares[share.zoneID.zoneName] = share.shareID }
            for zone in try await transport.listZones() where zone.zoneID.zoneName.hasPrefix(Self.shareZonePrefix) {
                current[ZoneID(zoneName: zone.zoneID.zoneName)] = (.readWrite, shares[zone.zoneID.zoneName])
            }
        }
        try mirror.store.writeTransaction { db in
            for (zoneID, (permission, shareID)) in current {
                try Placement.addZone(zoneID, permission: permission, shareID: shareID, db)
                try db.execute(sql: "UPDATE ANIMBUSCLOUDZONE SET ZSHAREID = ? WHERE ZKEY = ?", arguments: [shareID, ZoneLane.key(of: zoneID)])
            }
        }
        var removed: [ZoneLane] = []
        for zone in known where current[zone.zoneID] == nil {
            try await remove(zone.lane)
            removed.append(zone.lane)
        }
        return removed
    }

    /// Removes a zone from the store: its objects are deleted through the import context
    /// (nothing is sent), and its sync state is forgotten. Returns how many objects went.
    @discardableResult
    func remove(_ lane: ZoneLane) async throws -> Int {
        guard let key = lane.key else { return 0 }
        let mirror = self.mirror
        let members = try mirror.store.readTransaction { db in
            try Row.fetchAll(db, sql: "SELECT ZENTITY, ZPK FROM ANIMBUSCLOUDPLACEMENT WHERE ZZONE = ?", arguments: [key])
                .map { (entity: $0[0] as Int, primaryKey: $0[1] as Int64) }
        }
        let context = mirror.importContext
        let removed = try await context.perform {
            defer { context.reset() }
            var count = 0
            for member in members {
                guard let entity = mirror.store.entity(number: member.entity),
                      let object = try Exporter.existing(mirror.store.objectID(for: entity, primaryKey: member.primaryKey), context) else { continue }
                context.delete(object)
                count += 1
            }
            try context.save(in: mirror.store) { db, _ in
                for member in members {
                    if let row = try SyncMetadata.record(entity: member.entity, primaryKey: member.primaryKey, db) {
                        try db.execute(sql: "DELETE FROM ANIMBUSCLOUDRECORD WHERE ZRECORDNAME = ?", arguments: [row.recordName])
                    }
                    try SyncMetadata.setPendingFields([:], entity: member.entity, primaryKey: member.primaryKey, db)
                }
                try Placement.removeZone(key: key, db)
            }
            return count
        }
        mirror.log.notice("zone \(lane) is no longer shared with this store; \(removed) object(s) removed")
        return removed
    }

    /// Puts new objects (never sent) into the zone of an object they are related to: an item
    /// added to a shared list goes into the list's share, as CloudKit's mirroring places
    /// related records. Objects of a shared store that relate to no shared object stay
    /// unsent (they have no zone to go to).
    func placeNewObjects() async throws {
        let mirror = self.mirror
        let isSharedStore = self.isSharedStore
        let candidates = try mirror.store.writeTransaction { db -> [ObjectKey] in
            guard try !Placement.isEmpty(db) || isSharedStore else { return [] }
            // Saves not captured yet are what is new.
            try mirror.capture.capture(db)
            return try Row.fetchAll(db, sql: """
                SELECT p.ZENTITY, p.ZPK FROM ANIMBUSCLOUDPENDING p
                WHERE NOT EXISTS (SELECT 1 FROM ANIMBUSCLOUDRECORD r WHERE r.ZENTITY = p.ZENTITY AND r.ZPK = p.ZPK)
                AND NOT EXISTS (SELECT 1 FROM ANIMBUSCLOUDPLACEMENT pl WHERE pl.ZENTITY = p.ZENTITY AND pl.ZPK = p.ZPK)
                """).map { ObjectKey(entity: $0[0], primaryKey: $0[1]) }
        }
        guard !candidates.isEmpty else { return }
        let context = mirror.exportContext
        let (placements, gone): ([(ObjectKey, String)], [ObjectKey]) = try await context.perform {
            defer { context.reset() }
            var zones: [ObjectKey: String] = [:]
            var objects: [(ObjectKey, ManagedObject)] = []
            var gone: [ObjectKey] = []
            for key in candidates {
                // An object deleted since it was captured (with the zone it was made in, say)
                // was never sent: nothing is left to send.
                guard let entity = mirror.store.entity(number: key.entity),
                      let object = try Exporter.existing(mirror.store.objectID(for: entity, primaryKey: key.primaryKey), context) else {
                    gone.append(key)
                    continue
                }
                objects.append((key, object))
            }
            func zone(of object: ManagedObject) throws -> String? {
                let key = ObjectKey(object.objectID)
                if let known = zones[key] { return known }
                return try mirror.store.readTransaction { db in try Placement.zone(entity: key.entity, primaryKey: key.primaryKey, db) }
            }
            // Chains (an item of a new sublist of a shared list) settle in a few passes.
            var changed = true
            while changed {
                changed = false
                for (key, object) in objects where zones[key] == nil {
                    for relationship in object.entity.relationshipsByName.values {
                        let related: [ManagedObject]
                        if relationship.isToMany {
                            related = (object.value(forKey: relationship.name) as? Set<ManagedObject>).map(Array.init)
                                ?? (object.value(forKey: relationship.name) as? [ManagedObject]) ?? []
                        } else {
                            related = (object.value(forKey: relationship.name) as? ManagedObject).map { [$0] } ?? []
                        }
                        if let found = try related.lazy.compactMap({ try zone(of: $0) }).first {
                            zones[key] = found
                            changed = true
                            break
                        }
                    }
                }
            }
            return (zones.map { ($0.key, $0.value) }, gone)
        }
        mirror.log.debug("\(candidates.count) new object(s) without a zone; \(placements.count) placed by their relations, \(gone.count) gone")
        guard !placements.isEmpty || !gone.isEmpty else { return }
        try mirror.store.writeTransaction { db in
            for (key, zone) in placements { try Placement.place(entity: key.entity, primaryKey: key.primaryKey, in: zone, db) }
            // (Primary keys are never reused: the row is still the gone object's, if it was never sent.)
            for key in gone where try SyncMetadata.record(entity: key.entity, primaryKey: key.primaryKey, db) == nil {
                try SyncMetadata.setPendingFields([:], entity: key.entity, primaryKey: key.primaryKey, db)
            }
        }
    }
}
