import Foundation
import GRDB
import Nimbus
import NimbusWire

/// Sharing, with `NSPersistentCloudKitContainer`'s meaning (decision 0070): sharing objects
/// moves them, and everything they reach through relationships, into a zone of their own;
/// the zone's share names participants, who accept it through its URL and then see the
/// objects in their shared store (a store description whose options say
/// `DatabaseScope.shared`).
extension CloudContainer {
    // MARK: Owner

    /// Shares objects: moves them and every object they reach through relationships into a
    /// new zone (or the zone of `existingShare`), makes the zone's share on the server, and
    /// sends the moved objects there. Their object IDs do not change.
    ///
    /// Add participants with ``persistUpdatedShare(_:in:)``; give them the share's ``CloudShare/url``.
    /// ```swift
    /// let (ids, share) = try await container.share([list], to: nil)
    /// ```
    /// - Returns: The IDs of every object now in the share, and the share.
    /// - Throws: ``CloudError`` with ``CloudError/Code-swift.struct/invalidConfiguration`` for
    ///   objects that are unsaved, in several stores, or not in a private mirrored store.
    public func share(_ objects: [ManagedObject], to existingShare: CloudShare? = nil) async throws
        -> (sharedObjectIDs: Set<ManagedObjectID>, share: CloudShare) {
        try await share(objectIDs: objects.map(\.objectID), to: existingShare)
    }

    /// Shares the objects with these IDs (see ``share(_:to:)``): the form to call from
    /// outside the objects' context.
    public func share(objectIDs ids: [ManagedObjectID], to existingShare: CloudShare? = nil) async throws
        -> (sharedObjectIDs: Set<ManagedObjectID>, share: CloudShare) {
        guard !ids.isEmpty else { throw CloudError(.invalidConfiguration, "share() needs at least one object") }
        guard ids.allSatisfy({ !$0.isTemporaryID }) else {
            throw CloudError(.invalidConfiguration, "save the objects before sharing them (they have temporary IDs)")
        }
        let engine = try sharingEngine(for: ids)
        let mirror = engine.mirror
        guard mirror.options.databaseScope == .private else {
            throw CloudError(.invalidConfiguration, "objects of a shared store are already shared; only the owner shares them further")
        }
        let transport = try httpTransport(of: mirror)
        // Objects already in one of this user's share zones (a share() that failed half-way,
        // or sharing them again) complete that zone's share rather than making another.
        let current = try mirror.store.readTransaction { db in
            Set(try ids.map { try Placement.zone(entity: $0.entity.entityNumber, primaryKey: $0.primaryKey, db) })
        }
        let resumed = current.count == 1 ? current.first.flatMap { $0 }.flatMap { key in
            key.hasPrefix("/") ? ZoneID(zoneName: String(key.dropFirst())) : nil
        } : nil
        let zoneID = existingShare.map { ZoneID(zoneName: $0.zoneID.zoneName) } ?? resumed
            ?? ZoneID(zoneName: ZoneDirectory.shareZonePrefix + UUID().uuidString.lowercased())
        try await transport.createZone(zoneID)
        // Between syncs: a sync running now finishes first, and none starts until the objects
        // are in their zone (the zone is known before any object is placed in it).
        let graph = try await engine.exclusively {
            let graph = try await self.reachable(from: ids, into: .other(zoneID), mirror: mirror)
            try mirror.store.writeTransaction { db in try Placement.addZone(zoneID, permission: .readWrite, shareID: nil, db) }
            try self.move(graph, to: .other(zoneID), mirror: mirror)
            return graph
        }
        var request = existingShare?.saveRequest ?? SaveShareRequest(participants: [])
        if existingShare == nil, resumed != nil, let kept = try await transport.fetchShare(zone: zoneID) {
            // Sharing again: the share keeps its participants.
            request = CloudShare(kept, serverURL: mirror.options.serverURL, isOwner: true).saveRequest
        }
        let saved = try await transport.saveShare(zone: zoneID, request: request)
        try mirror.store.writeTransaction { db in
            try Placement.addZone(zoneID, permission: .readWrite, shareID: saved.shareID, db)
        }
        _ = try await engine.sync()
        return (Set(graph), CloudShare(saved, serverURL: mirror.options.serverURL, isOwner: true))
    }

    /// Saves a share's participants and public permission (add or remove participants,
    /// change permissions). Only the owner saves a share.
    /// - Parameters:
    ///   - share: The share as it should be.
    ///   - store: The owner's private store the share's objects are in.
    /// - Returns: The share as the server holds it now (new participants `invited`).
    public func persistUpdatedShare(_ share: CloudShare, in store: PersistentStore) async throws -> CloudShare {
        let mirror = try storeMirror(store)
        guard share.isOwner, mirror.options.databaseScope == .private else {
            throw CloudError(.permissionFailure, "only the owner of a share changes it")
        }
        let saved = try await httpTransport(of: mirror).saveShare(zone: share.zoneID, request: share.saveRequest)
        return CloudShare(saved, serverURL: mirror.options.serverURL, isOwner: true)
    }

    /// The shares of objects, by object ID (objects that are not shared are left out).
    public func fetchShares(matching objectIDs: [ManagedObjectID]) async throws -> [ManagedObjectID: CloudShare] {
        var result: [ManagedObjectID: CloudShare] = [:]
        var byZone: [String: CloudShare?] = [:]
        for id in objectIDs {
            guard let engine = engines.first(where: { $0.mirror.store.identifier == id.storeIdentifier }) else { continue }
            let mirror = engine.mirror
            guard let key = try mirror.store.readTransaction({ db in
                try Placement.zone(entity: id.entity.entityNumber, primaryKey: id.primaryKey, db)
            }) else { continue }
            if byZone[key] == nil {
                let row = try mirror.store.readTransaction { db in try Placement.zone(key: key, db) }
                var share: ZoneShare?
                if let row { share = try await httpTransport(of: mirror).fetchShare(zone: row.zoneID) }
                byZone[key] = share.map { CloudShare($0, serverURL: mirror.options.serverURL, isOwner: row?.zoneID.ownerName == nil) }
            }
            if let share = byZone[key] ?? nil { result[id] = share }
        }
        return result
    }

    /// Every share of a store: the owner's shares in a private store, the accepted shares
    /// in a shared store (`nil`: every mirrored store).
    public func fetchShares(in store: PersistentStore? = nil) async throws -> [CloudShare] {
        var shares: [CloudShare] = []
        for engine in engines where store == nil || engine.mirror.store === store {
            let mirror = engine.mirror
            let list = try await httpTransport(of: mirror).listShares()
            if mirror.options.databaseScope == .shared {
                shares += list.participating.map { CloudShare($0, serverURL: mirror.options.serverURL, isOwner: false) }
            } else {
                shares += list.owned.map { CloudShare($0, serverURL: mirror.options.serverURL, isOwner: true) }
            }
        }
        return shares
    }

    /// Participants for user names of this server, to add to a share (as Core Data looks
    /// them up by email address or phone number). Names are not checked against the
    /// server's users: a share never tells whether a name exists.
    public func fetchParticipants(matching userNames: [String], permission: SharePermission = .readWrite,
                                  into store: PersistentStore) async throws -> [ShareParticipant] {
        _ = try storeMirror(store)
        return userNames.map { ShareParticipant(userName: $0, permission: permission) }
    }

    /// Ends a share: every participant loses the zone; the objects stay in this store.
    public func stopSharing(_ share: CloudShare, in store: PersistentStore) async throws {
        let mirror = try storeMirror(store)
        guard share.isOwner else { throw CloudError(.permissionFailure, "only the owner stops sharing; participants leave") }
        try await httpTransport(of: mirror).deleteShare(zone: share.zoneID)
        try mirror.store.writeTransaction { db in
            try db.execute(sql: "UPDATE ANIMBUSCLOUDZONE SET ZSHAREID = NULL WHERE ZKEY = ?", arguments: [ZoneLane.key(of: share.zoneID)])
        }
    }

    // MARK: Participant

    /// Accepts share invitations: each share's zone joins the shared store and is fetched.
    /// - Parameters:
    ///   - urls: Share URLs (as ``CloudShare/url`` gives them).
    ///   - store: The shared store (options with `DatabaseScope.shared`).
    /// - Returns: What each URL led to.
    /// - Throws: ``CloudError`` carrying the server's `unknownItem` for a URL that is unknown
    ///   or not for this user (the server answers both alike).
    @discardableResult
    public func acceptShareInvitations(from urls: [URL], into store: PersistentStore) async throws -> [ShareMetadata] {
        let engine = try engine(for: store)
        let mirror = engine.mirror
        guard mirror.options.databaseScope == .shared else {
            throw CloudError(.invalidConfiguration, "shares are accepted into the shared store (a description whose options have databaseScope .shared)")
        }
        var accepted: [ShareMetadata] = []
        for url in urls {
            guard let secret = CloudShare.secret(of: url) else { throw CloudError(.invalidConfiguration, "\(url) is not a share URL") }
            let metadata = try await httpTransport(of: mirror).acceptShare(secret: secret)
            guard metadata.containerIdentifier == mirror.options.containerIdentifier else {
                throw CloudError(.invalidConfiguration, "the share is for container \(metadata.containerIdentifier), not \(mirror.options.containerIdentifier)")
            }
            try mirror.store.writeTransaction { db in
                try Placement.addZone(metadata.zoneID, permission: metadata.permission, shareID: metadata.shareID, db)
            }
            accepted.append(metadata)
        }
        await engine.requestDiscovery()
        _ = try await engine.sync()
        return accepted
    }

    /// Leaves a share of another user: its zone and objects leave the shared store.
    public func leave(_ share: CloudShare, in store: PersistentStore) async throws {
        let mirror = try storeMirror(store)
        try await httpTransport(of: mirror).leaveShare(zone: share.zoneID)
        try await ZoneDirectory(mirror: mirror).remove(.other(share.zoneID))
    }

    /// Deletes a zone's objects here and its records on the server: the owner deletes the
    /// zone (every participant loses it); a participant leaves it.
    public func purgeObjectsAndRecordsInZone(with zoneID: ZoneID, in store: PersistentStore) async throws {
        let mirror = try storeMirror(store)
        let transport = try httpTransport(of: mirror)
        if mirror.options.databaseScope == .shared { try await transport.leaveShare(zone: zoneID) }
        else { try await transport.deleteZone(ZoneID(zoneName: zoneID.zoneName)) }
        try await ZoneDirectory(mirror: mirror).remove(.other(zoneID))
    }

    // MARK: Permissions

    /// Whether this user may change the object: false in a read-only share.
    public func canUpdateRecord(forManagedObjectWith objectID: ManagedObjectID) -> Bool {
        permission(of: objectID) != .readOnly
    }

    /// Whether this user may delete the object: false in a read-only share.
    public func canDeleteRecord(forManagedObjectWith objectID: ManagedObjectID) -> Bool {
        permission(of: objectID) != .readOnly
    }

    /// Whether the object is in a share (the owner's shared zone, or any object of a shared store).
    public func isShared(_ objectID: ManagedObjectID) -> Bool {
        guard case let .known(row)? = zone(of: objectID), let row else { return false }
        return row.zoneID.ownerName != nil || row.shareID != nil
    }

    /// The permission this user holds on the object: `nil` outside any share; read-only
    /// when its zone can't be read (the answer fails closed, and the error is logged).
    private func permission(of objectID: ManagedObjectID) -> SharePermission? {
        switch zone(of: objectID) {
        case nil: return nil
        case .unreadable?: return .readOnly
        case let .known(row)?: return row?.permission
        }
    }

    private enum ZoneLookup { case known(Placement.ZoneRow?), unreadable }

    /// The zone row of an object (`nil` when the object is not in a mirrored store).
    private func zone(of objectID: ManagedObjectID) -> ZoneLookup? {
        guard let mirror = mirror(for: objectID.storeIdentifier) else { return nil }
        do {
            return .known(try mirror.store.readTransaction { db -> Placement.ZoneRow? in
                guard let key = try Placement.zone(entity: objectID.entity.entityNumber, primaryKey: objectID.primaryKey, db) else { return nil }
                return try Placement.zone(key: key, db)
            })
        } catch {
            mirror.log.error("the zone of \(objectID) could not be read: \(error)")
            return .unreadable
        }
    }

    // MARK: Stores

    /// The first mirrored store of a database: the private store, or the shared store that
    /// ``acceptShareInvitations(from:into:)`` takes (`nil` when there is none).
    public func mirroredStore(for scope: DatabaseScope) -> PersistentStore? {
        persistentStoreCoordinator.persistentStores.first { $0.storeDescription.cloudContainerOptions?.databaseScope == scope }
    }

    // MARK: Helpers

    func engine(for store: PersistentStore) throws -> MirrorEngine {
        guard let engine = engines.first(where: { $0.mirror.store === store }) else {
            throw CloudError(.invalidConfiguration, "the store \(store.url?.path ?? store.identifier) is not mirrored")
        }
        return engine
    }

    private func storeMirror(_ store: PersistentStore) throws -> StoreMirror { try engine(for: store).mirror }

    private func sharingEngine(for ids: [ManagedObjectID]) throws -> MirrorEngine {
        let stores = Set(ids.map(\.storeIdentifier))
        guard stores.count == 1, let engine = engines.first(where: { $0.mirror.store.identifier == stores.first }) else {
            throw CloudError(.invalidConfiguration, "the objects to share must all be in one mirrored store")
        }
        return engine
    }

    private func httpTransport(of mirror: StoreMirror) throws -> HTTPTransport {
        guard let transport = mirror.transport as? HTTPTransport else {
            throw CloudError(.invalidConfiguration, "sharing needs a Nimbus sync server (the store's transport is not HTTP)")
        }
        return transport
    }

    /// Every object reachable from `ids` through relationships, in the default zone or
    /// already in `lane` (objects in another zone stay there, and are not followed: a link to
    /// them stays on the owner's devices).
    private func reachable(from ids: [ManagedObjectID], into lane: ZoneLane, mirror: StoreMirror) async throws -> [ManagedObjectID] {
        let context = mirror.exportContext
        let placed = try mirror.store.readTransaction { db in
            try Row.fetchAll(db, sql: "SELECT ZENTITY, ZPK FROM ANIMBUSCLOUDPLACEMENT WHERE ZZONE != ?", arguments: [lane.key])
                .map { ObjectKey(entity: $0[0], primaryKey: $0[1]) }
        }
        let elsewhere = Set(placed)
        return try await context.perform {
            defer { context.reset() }
            var seen = Set<ManagedObjectID>()
            var queue = ids
            var order: [ManagedObjectID] = []
            while let id = queue.popLast() {
                guard seen.insert(id).inserted, !elsewhere.contains(ObjectKey(id)),
                      mirror.mirrored.entities.contains(where: { $0.name == id.entity.name }),
                      let object = try Exporter.existing(id, context) else { continue }
                order.append(id)
                for relationship in object.entity.relationshipsByName.values {
                    let value = object.value(forKey: relationship.name)
                    if let one = value as? ManagedObject { queue.append(one.objectID) }
                    else if let many = value as? Set<ManagedObject> { queue += many.map(\.objectID) }
                    else if let ordered = value as? [ManagedObject] { queue += ordered.map(\.objectID) }
                }
            }
            return order
        }
    }

    /// Moves objects into a zone in one transaction: each one's record in the default zone
    /// becomes a marker of the move, and the object goes out whole to the new zone under its
    /// moved name (see ``MovedRecords``).
    private func move(_ ids: [ManagedObjectID], to lane: ZoneLane, mirror: StoreMirror) throws {
        try mirror.store.writeTransaction { db in
            try mirror.capture.capture(db)
            var clock = try HybridLogicalClock.load(db)
            let now = try mirror.now(db)
            for id in ids {
                let key = ObjectKey(id)
                // Already there (a share made again): nothing to move.
                if try Placement.zone(entity: key.entity, primaryKey: key.primaryKey, db) == lane.key { continue }
                let stamp = HLCStamp(time: clock.tick(at: now), device: mirror.deviceID)
                // Its record in the default zone becomes a marker of the move (see ``MovedRecords``).
                let row = try SyncMetadata.record(entity: key.entity, primaryKey: key.primaryKey, db)
                let before = try SyncMetadata.pendingFields(entity: key.entity, primaryKey: key.primaryKey, db) ?? [:]
                if let row { try MovedRecords.move(row, recordType: MirroredModel.recordType(for: id.entity), to: lane.zoneID, stamp: stamp, db) }
                try Placement.place(entity: key.entity, primaryKey: key.primaryKey, in: lane.key, db)
                try mirror.capture.recordInsert(id, stamp: stamp, db)
                // The object goes out whole, each value with the stamp it had (a move is not an
                // edit: a later edit made elsewhere before the move still wins).
                var stamps = try SyncMetadata.pendingFields(entity: key.entity, primaryKey: key.primaryKey, db) ?? [:]
                let kept = row.map(MovedRecords.confirmedStamps) ?? [:]
                for (property, moved) in stamps where moved == stamp {
                    if let earlier = [before[property], kept[property]].compactMap({ $0 }).max() { stamps[property] = earlier }
                }
                try SyncMetadata.setPendingFields(stamps, entity: key.entity, primaryKey: key.primaryKey, db)
                try db.execute(sql: """
                    UPDATE ANIMBUSCLOUDLINK SET ZPENDING = 1, ZTIME = ?, ZDEVICE = ?
                    WHERE ZLINKED = 1 AND ((ZFIRSTENTITY = ?3 AND ZFIRSTPK = ?4) OR (ZSECONDENTITY = ?3 AND ZSECONDPK = ?4))
                    """,
                    arguments: [stamp.time, stamp.device, key.entity, key.primaryKey])
            }
            try clock.save(db)
        }
    }
}
