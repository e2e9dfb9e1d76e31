import Foundation
import GRDB
import struct NimbusWire.Record
import Nimbus
import NimbusWire

/// Applies one page of zone changes to the store through the import context, and writes
/// the metadata (mappings, ancestors, memberships, parked records, tombstones and the zone
/// token) in the same transaction as the rows.
///
/// Per field, the later stamp wins: a remote value older than a pending local edit is
/// ignored (the local edit is sent later), a remote value already applied changes nothing
/// (a page applied twice is a no-op). Deletion beats update. A record that refers to a record
/// not here yet is parked whole and applied when that record arrives.
struct PageApplier {
    let mirror: StoreMirror
    let context: ManagedObjectContext
    /// The assets downloaded for this import (files on disk); those a page needs and lacks are
    /// asked for with ``NeedsAssets``.
    let assets: AssetFiles
    /// Whether fields are applied even where the ancestor holds them already (fields a model
    /// upgrade made known were kept there without being applied).
    var replaying = false
    /// Whether two synced records claiming one unique key merge (see ``survivor(_:_:key:)``):
    /// only once the device has caught up with the zone, when neither can be a stale view.
    var settlesKeyConflicts = false
    /// The zone the page comes from; `nil` for the store's default zone (see ``ZoneLane``).
    var lane: ZoneLane? = nil

    /// Thrown when a local save slipped in after the capture: the page is applied again.
    struct UncapturedEdits: Error {}

    /// Thrown when one record of the page can't be applied (its asset is gone, say): the
    /// importer applies the page's records one by one and sets that one aside.
    struct RecordFault: Error, CustomStringConvertible {
        var description: String
    }

    /// Thrown before anything is saved when the page sets values held in assets not downloaded
    /// yet: the importer downloads them and applies the page again.
    struct NeedsAssets: Error {
        var references: [AssetReference]
    }

    struct Stats: Sendable {
        var applied = 0
        var deleted = 0
        var parked = 0
        var conflicts = 0
        /// Records set aside because they can't be applied here (see ``Quarantine``).
        var quarantined = 0

        static func += (lhs: inout Stats, rhs: Stats) {
            lhs.applied += rhs.applied
            lhs.deleted += rhs.deleted
            lhs.parked = rhs.parked
            lhs.conflicts += rhs.conflicts
            lhs.quarantined += rhs.quarantined
        }
    }

    /// Known metadata for the records of a page.
    struct Known {
        var rows: [String: SyncMetadata.RecordRow] = [:]
        var pending: [ObjectKey: [String: HLCStamp]] = [:]
        var tombstones: Set<String> = []
        var links: [String: (linked: Bool, stamp: HLCStamp, pending: Bool)] = [:]
        /// Entities an earlier model had and this one removed.
        var retired: Set<String> = []
    }

    func apply(records page: [Record], deletions: [DeletedRecord], token: ChangeToken?) throws -> Stats {
        var stats = Stats()
        // Markers of records moved into share zones (in the default zone): never objects.
        let isDefaultLane = lane?.key == nil
        let markers = isDefaultLane ? page.filter { MovedRecords.zone(ofMarker: $0) != nil } : []
        let incoming = markers.isEmpty ? page : page.filter { MovedRecords.zone(ofMarker: $0) == nil }
        let deletedNames = Set(deletions.map(\.recordName))
        // Parked records waiting for what arrives now are tried again with this page.
        // (A record unparked now may itself be what another parked record waits for.)
        var arriving = Set(incoming.map(\.recordName)).union(deletedNames)
        // Records of the default zone waiting for a record that has since moved into a share
        // zone (and arrived there) are tried again: the reference resolves to the moved record.
        if isDefaultLane {
            arriving.formUnion(try mirror.store.readTransaction { db -> [String] in
                guard try !Placement.isEmpty(db) else { return [] }
                let waiting = try String.fetchAll(db, sql: "SELECT DISTINCT ZWAITINGFOR FROM ANIMBUSCLOUDPARKED WHERE ZZONE IS NULL")
                return Array(try MovedRecords.moved(from: waiting, db).keys)
            })
        }
        var unparked: [Record] = []
        var seenParked: Set<String> = []   // (sets: a search of the list per record was quadratic)
        var newlyArriving = arriving
        while !newlyArriving.isEmpty {
            let found = try mirror.store.readTransaction { db in try ParkedRecords.waiting(for: Array(newlyArriving), db) }
                .filter { record in seenParked.insert(record.recordName).inserted }
            unparked += found
            newlyArriving = Set(found.map(\.recordName)).subtracting(arriving)
            arriving.formUnion(newlyArriving)
        }
        var records = incoming
        let incomingNames = Set(incoming.map(\.recordName))
        records += unparked.filter { parked in !incomingNames.contains(parked.recordName) }

        let known = try load(records, deletions: deletions)
        // Records whose every field this device already holds (its own exports coming back).
        let current = Set(records.filter { record in
            guard !replaying, let ancestor = known.rows[record.recordName]?.ancestor else { return false }
            return record.fields.allSatisfy { key, field in ancestor.fields[key].map { field.stamp <= $0.stamp } ?? false }
        }.map(\.recordName))
        records.removeAll { current.contains($0.recordName) }
        let model = context.managedObjectModel
        // Records this device can't apply are set aside one by one (quarantined); the rest of
        // the page applies, and records that refer to a set-aside one wait for it (parked).
        var quarantined: [(record: Record, reason: String)] = []
        records.removeAll { record in
            switch verdict(on: record, known: known, model: model) {
            case .apply: return false
            case .skip: return true
            case let .quarantine(reason):
                quarantined.append((record, reason))
                return true
            }
        }
        // Every object the page names, one fetch per inheritance hierarchy.
        var loaded: [ManagedObjectID: ManagedObject] = [:]
        let ids = known.rows.values.filter { !current.contains($0.recordName) }.compactMap { row in
            mirror.store.entity(number: row.entity).map { mirror.store.objectID(for: $0, primaryKey: row.primaryKey) }
        }
        for (_, group) in Dictionary(grouping: ids, by: { $0.entity.rootEntityNumber }) {
            var request = FetchRequest<ManagedObject>(entityName: group[0].entity.rootEntity.name)
            request.predicate = try QueryPredicate(format: "SELF IN %@", argumentArray: [group])
            request.affectedStores = [mirror.store]
            for object in try context.fetch(request) { loaded[object.objectID] = object }
        }
        // Objects not loaded above (their records were skipped as already held) are read
        // one by one when a reference or membership needs them.
        func existing(_ row: SyncMetadata.RecordRow) throws -> ManagedObject? {
            guard let entity = mirror.store.entity(number: row.entity) else { return nil }
            let id = mirror.store.objectID(for: entity, primaryKey: row.primaryKey)
            if let object = loaded[id] { return object }
            let object = try Exporter.existing(id, context)
            loaded[id] = object
            return object
        }
        var tombstones = known.tombstones.union(deletedNames)

        // New records whose unique key a local object holds (before this page changes anything):
        // an object never sent takes the record's name; a synced one is a conflict between two
        // records, settled once this device has caught up with the zone (until then the local
        // object's own update may still be on its way), so the record waits in quarantine.
        let pageObjects = Set(known.rows.values.compactMap { row in
            mirror.store.entity(number: row.entity).map { mirror.store.objectID(for: $0, primaryKey: row.primaryKey) }
        })
        var twins: [String: (object: ManagedObject, row: SyncMetadata.RecordRow?)] = [:]
        for record in records where record.recordType != MirroredModel.linkRecordType && known.rows[record.recordName] == nil {
            guard let entity = entity(of: record, known: nil, model: model),
                  let twin = try uniqueTwin(of: record, entity: entity, excluding: pageObjects) else { continue }
            let row = try mirror.store.readTransaction { db in
                try SyncMetadata.record(entity: twin.objectID.entity.entityNumber, primaryKey: twin.objectID.primaryKey, db)
            }
            if row != nil && !settlesKeyConflicts {
                quarantined.append((record, "its unique key is held by record \(row!.recordName) here; settled once this device has caught up"))
                continue
            }
            twins[record.recordName] = (twin, row)
        }
        records.removeAll { record in quarantined.contains { $0.record.recordName == record.recordName } }
        // Records moved here from the default zone whose old copy this device holds: the copy
        // takes the moved record's name (see ``MovedRecords``).
        var adopted: [String: (object: ManagedObject, origin: SyncMetadata.RecordRow)] = [:]
        if let zone = lane?.key == nil ? nil : lane?.zoneID.zoneName {
            for record in records where record.recordType != MirroredModel.linkRecordType && known.rows[record.recordName] == nil {
                guard let row = try mirror.store.readTransaction({ db in try MovedRecords.adoptable(record.recordName, in: zone, db) }),
                      let object = try existing(row), !object.isDeleted else { continue }
                adopted[record.recordName] = (object, row)
            }
        }

        // Which records can be applied: every name they refer to is here, known, or gone.
        let objectRecords = records.filter { $0.recordType != MirroredModel.linkRecordType }
        var present = Set(known.rows.keys)
        var candidates = Set(objectRecords.map(\.recordName)).subtracting(tombstones)
        var parked: [String: String] = [:]   // record → the name it waits for
        var changed = true
        while changed {
            changed = false
            for record in objectRecords where candidates.contains(record.recordName) {
                if let missing = references(of: record).first(where: { !present.contains($0) && !candidates.contains($0) && !tombstones.contains($0) }) {
                    candidates.remove(record.recordName)
                    parked[record.recordName] = missing
                    changed = true
                }
            }
        }
        present.formUnion(candidates)

        // The assets whose values this page sets, all asked for at once (see ``assetToApply``).
        let wanted = objectRecords.filter { candidates.contains($0.recordName) }.flatMap { record -> [AssetReference] in
            guard let entity = entity(of: record, known: known.rows[record.recordName], model: model) else { return [] }
            let row = known.rows[record.recordName]
            let pending = row.flatMap { known.pending[ObjectKey(entity: $0.entity, primaryKey: $0.primaryKey)] } ?? [:]
            return (mirror.mirrored.roles[entity.name] ?? [:]).keys.compactMap { name in
                assetToApply(name, in: record, ancestor: row?.ancestor, pending: pending[name])
            }
        }.filter { !assets.has($0) }
        if !wanted.isEmpty { throw NeedsAssets(references: wanted) }

        var objects: [String: ManagedObject] = [:]
        var remapped = Set<ManagedObjectID>()   // local objects this page gives another record name
        var newObjects: [(ManagedObject, String)] = []
        var ancestors: [String: Record] = [:]
        var pendingUpdates: [ObjectKey: [String: HLCStamp]] = [:]
        var conflicted: [String] = []
        var absorbed: [String] = []           // records merged into a local twin that keeps the unique key
        var superseded: [String] = []         // a twin's record name that lost the unique key to an incoming record
        var keyEdits: [String] = []           // known records whose unique key this page changes

        // 1. Objects and their scalar fields.
        for record in objectRecords where candidates.contains(record.recordName) {
            guard let entity = entity(of: record, known: known.rows[record.recordName], model: model) else { continue }
            let object: ManagedObject
            var pending: [String: HLCStamp] = [:]
            var ancestor = known.rows[record.recordName]?.ancestor
            var absorbing = false
            var carried = false   // adopted from a moved record: its pending fields are written whatever the merge
            if let row = known.rows[record.recordName] {
                guard let found = try existing(row), !found.isDeleted else { continue }   // deleted here; its deletion is on the way
                object = found
                pending = known.pending[ObjectKey(found.objectID)] ?? [:]
            } else if let (moved, origin) = adopted[record.recordName] {
                // The copy keeps what it confirmed under the old name, and sends it again under
                // the new one (the server keeps each field's later stamp).
                object = moved
                pending = try mirror.store.readTransaction { db in
                    try SyncMetadata.pendingFields(entity: moved.objectID.entity.entityNumber, primaryKey: moved.objectID.primaryKey, db)
                } ?? [:]
                pending.merge(MovedRecords.confirmedStamps(origin)) { max($0, $1) }
                ancestor = origin.ancestor
                carried = true
                newObjects.append((moved, record.recordName))
                remapped.insert(moved.objectID)
            } else if let (twin, twinRow) = twins[record.recordName] {
                object = twin
                pending = try mirror.store.readTransaction { db in
                    try SyncMetadata.pendingFields(entity: twin.objectID.entity.entityNumber, primaryKey: twin.objectID.primaryKey, db)
                } ?? [:]
                // Two records claim one unique key: every device keeps the same one (see
                // ``survivor(_:_:key:)``); the other's fields merge into it by stamp, and it goes.
                let key = RecordNames.uniqueName(entity: entity, values: uniqueValues(of: twin))
                if let twinName = twinRow?.recordName, Self.survivor(twinName, record.recordName, key: key) == twinName {
                    absorbing = true
                    absorbed.append(record.recordName)
                    ancestor = twinRow?.ancestor
                } else {
                    if let twinName = twinRow?.recordName { superseded.append(twinName) }
                    newObjects.append((twin, record.recordName))
                    remapped.insert(twin.objectID)
                }
            } else {
                object = try context.insertNewObject(forEntityName: entity.name)
                newObjects.append((object, record.recordName))
            }
            objects[record.recordName] = object
            var lost = pending
            let uniqueKeys = Set(entity.rootEntity.uniquenessConstraints.first ?? [])
            for (name, role) in mirror.mirrored.roles[entity.name] ?? [:] {
                guard case let .attribute(attribute) = role, let (field, stamp) = effectiveField(name, in: record) else { continue }
                if !replaying, let applied = effectiveField(name, in: ancestor)?.1, stamp <= applied { continue }
                if holdsAsset(of: field, name, ancestor: ancestor, pending: pending[name]) { continue }
                let remote = try value(of: field, for: attribute)
                if let local = pending[name] {
                    conflicted.append(record.recordName)
                    var resolution = FieldResolution.byStamp
                    if let resolver = mirror.resolver(entity.name) {
                        resolution = resolver(FieldConflict(entityName: entity.name, objectID: object.objectID, property: name,
                                                            localValue: object.primitiveValue(forKey: name) ?? .null, remoteValue: remote,
                                                            localStamp: local, remoteStamp: stamp))
                    }
                    switch resolution {
                    case .byStamp:
                        if local > stamp { continue }
                        lost[name] = nil
                    case .keepLocal:
                        lost[name] = .freshEdit
                        continue
                    case .takeRemote:
                        lost[name] = nil
                    case let .merged(value):
                        object.setValue(value, forKey: name)
                        lost[name] = .freshEdit
                        continue
                    }
                }
                object.setValue(remote, forKey: name)
                // An absorbed record's values live on in the twin's record: they go out as its edits.
                if absorbing, lost[name].map({ $0 < stamp }) ?? true { lost[name] = stamp }
                if uniqueKeys.contains(name), known.rows[record.recordName] != nil { keyEdits.append(record.recordName) }
            }
            if lost != pending || carried, !object.objectID.isTemporaryID { pendingUpdates[ObjectKey(object.objectID)] = lost }
            ancestors[record.recordName] = Ancestor.mergeAll(record, into: ancestor)
            stats.applied += 1
        }

        // 2. References.
        for record in objectRecords where candidates.contains(record.recordName) {
            guard let object = objects[record.recordName] else { continue }
            let ancestor = known.rows[record.recordName]?.ancestor
            let pending = known.pending[ObjectKey(object.objectID)] ?? [:]
            for (name, role) in mirror.mirrored.roles[object.entity.name] ?? [:] {
                guard case let .toOne(relationship) = role, let field = record.fields[MirroredModel.fieldName(name)] else { continue }
                if !replaying, let applied = ancestor?.fields[MirroredModel.fieldName(name)]?.stamp, field.stamp <= applied { continue }
                if let local = pending[name], local > field.stamp { continue }
                guard case let .string(target)? = field.value else {
                    object.setValue(nil, forKey: name)
                    continue
                }
                if tombstones.contains(target) {
                    // The related object is gone: follow its delete rule for this side.
                    let inverse = context.managedObjectModel.entitiesByName[relationship.destinationEntityName]?
                        .relationshipsByName[relationship.inverseName ?? ""]
                    if inverse?.deleteRule == .cascade { context.delete(object) } else { object.setValue(nil, forKey: name) }
                    continue
                }
                let destination = try objects[target] ?? known.rows[target].flatMap(existing)
                object.setValue(destination, forKey: name)
            }
        }

        // 3. Memberships (CDMR records).
        var linkUpdates: [(String, ManagedObject, ManagedObject, Bool, HLCStamp)] = []
        for record in records where record.recordType == MirroredModel.linkRecordType {
            guard let link = LinkRecord(record) else { continue }
            if tombstones.contains(link.first) || tombstones.contains(link.second) { continue }
            guard let first = try objects[link.first] ?? known.rows[link.first].flatMap(existing),
                  let second = try objects[link.second] ?? known.rows[link.second].flatMap(existing) else {
                parked[record.recordName] = present.contains(link.first) ? link.second : link.first
                continue
            }
            let linkKey = "\(link.key)#\(link.first)#\(link.second)"
            if let local = known.links[linkKey], local.pending, local.stamp > link.stamp { continue }
            if let local = known.links[linkKey], !local.pending, local.stamp >= link.stamp { continue }
            guard let relationship = link.firstRelationship,
                  case let .manyToMany(key, isFirst)? = mirror.mirrored.role(of: relationship, in: first.entity), key == link.key, isFirst,
                  let destination = first.entity.relationshipsByName[relationship]?.destinationEntityName,
                  let destinationEntity = model.entitiesByName[destination], second.entity.isKind(of: destinationEntity) else {
                quarantined.append((record, "the membership links \(first.entity.name) and \(second.entity.name) through \(link.key), "
                    + "which this model doesn't have between them"))
                continue
            }
            if link.linked { try first.addObjects([second], toRelationship: relationship) }
            else { try first.removeObjects([second], fromRelationship: relationship) }
            linkUpdates.append((link.key, first, second, link.linked, link.stamp))
        }

        // 3b. A unique key this page gave an object that another local object holds: the two
        // merge into the record that keeps the key on every device; the other record goes.
        var keyMerges: [KeyMerge] = []
        for name in Set(keyEdits).sorted() where settlesKeyConflicts {
            guard let object = objects[name], !object.isDeleted, let twin = try keyTwin(of: object), !twin.isDeleted else { continue }
            let claim = KeyClaim(object: object, name: name, ancestor: ancestors[name] ?? known.rows[name]?.ancestor,
                                 pending: pendingUpdates[ObjectKey(object.objectID)] ?? known.pending[ObjectKey(object.objectID)] ?? [:])
            var other = KeyClaim(object: twin, name: objects.first { $0.value === twin }?.key, ancestor: nil, pending: [:])
            if !twin.objectID.isTemporaryID {
                let key = ObjectKey(twin.objectID)
                let (row, pending) = try mirror.store.readTransaction { db in
                    (try SyncMetadata.record(entity: key.entity, primaryKey: key.primaryKey, db),
                     try SyncMetadata.pendingFields(entity: key.entity, primaryKey: key.primaryKey, db))
                }
                other.name = other.name ?? row?.recordName
                other.ancestor = other.name.flatMap { ancestors[$0] } ?? row?.ancestor
                other.pending = pendingUpdates[key] ?? pending ?? [:]
            }
            keyMerges.append(try mergeKeyTwins(claim, other))
        }
        let mergedAway = Set(keyMerges.map(\.loser))

        // 4. Deletions.
        var removedNames = Set<String>()
        for deletion in deletions {
            // A unique-keyed object named after its key but never confirmed: the deletion may be
            // of another device's record of the same key, its own save never having arrived.
            // Its export meets the tombstone and tells the two apart (see ``FirstSaves``): the
            // import leaves it alone, as it would had the export run first.
            if let row = known.rows[deletion.recordName], row.changeTag == nil,
               let entity = mirror.store.entity(number: row.entity), !(entity.rootEntity.uniquenessConstraints.first ?? []).isEmpty {
                continue
            }
            removedNames.insert(deletion.recordName)
            guard let row = known.rows[deletion.recordName] else { continue }
            // An object this page matched to a newer record of its unique key stays.
            if let object = try existing(row), !remapped.contains(object.objectID) { context.delete(object); stats.deleted += 1 }
        }
        tombstones.formUnion(removedNames)

        try context.processPendingChanges()
        // Objects the delete rules removed that the server still has: their deletion goes out.
        let cascaded = context.deletedObjects.map(\.objectID).filter { !$0.isTemporaryID }
        let parkedRecords = records.filter { parked[$0.recordName] != nil }
        stats.parked = parkedRecords.count
        stats.conflicts = Set(conflicted).count
        stats.quarantined = quarantined.count
        let setAside = quarantined
        // Applied or deleted now: no longer set aside.
        let settledNames = Set(objects.keys)
            .union(records.filter { $0.recordType == MirroredModel.linkRecordType && parked[$0.recordName] == nil }.map(\.recordName))
            .union(removedNames).subtracting(quarantined.map(\.record.recordName))
        let unparkedNames = Set(unparked.map(\.recordName)).subtracting(parked.keys)
        let importAuthor = mirror.importAuthor
        let captureCursorCheck = mirror.store
        let newNames = newObjects.filter { !mergedAway.contains($0.0.objectID) }.map { ($0.0.objectID, $0.1) }
        let goneNames = absorbed + superseded
        let merges = keyMerges
        let renamed = Array(remapped)
        let linkRows = linkUpdates.map { ($0.0, $0.1.objectID, $0.2.objectID, $0.3, $0.4) }
        let deviceID = mirror.deviceID
        let conflictNames = Array(Set(conflicted))
        let finalPending = pendingUpdates
        let finalAncestors = ancestors
        let parkedList = parkedRecords.map { ($0, parked[$0.recordName]!) }
        let finalRemoved = removedNames
        let allRecords = records
        let adoptedOrigins = adopted.values.map(\.origin.recordName)
        try context.save(in: mirror.store) { db, permanent in
            // A local save after the capture would be overwritten silently: apply again.
            let cursor = Int64.fromDatabaseValue(try SyncMetadata.state(.historyCursor, db)) ?? 0
            if try Self.hasUncapturedEdits(after: cursor, author: importAuthor, db) { throw UncapturedEdits() }
            try MovedRecords.apply(markers: markers, db)
            for origin in adoptedOrigins { try FirstSaves.forget(origin, db) }
            try SyncMetadata.mapRecords(newNames.map { id, name in
                let permanentID = permanent[id] ?? id
                return (permanentID.entity.entityNumber, permanentID.primaryKey, name)
            }, db)
            if let zone = lane?.key {
                for (id, _) in newNames {
                    let permanentID = permanent[id] ?? id
                    try Placement.place(entity: permanentID.entity.entityNumber, primaryKey: permanentID.primaryKey, in: zone, db)
                }
            }
            // An object matched to a newer record of its unique key had its memberships sent
            // under its old name, which the other devices no longer resolve (that record was
            // deleted): they go again under the new one.
            for id in renamed {
                try db.execute(sql: """
                    UPDATE ANIMBUSCLOUDLINK SET ZPENDING = 1 WHERE (ZFIRSTENTITY = ?1 AND ZFIRSTPK = ?2) OR (ZSECONDENTITY = ?1 AND ZSECONDPK = ?2)
                    """, arguments: [id.entity.entityNumber, id.primaryKey])
            }
            try SyncMetadata.confirmAll(finalAncestors.values, db)
            var clock = try HybridLogicalClock.load(db)
            let now = try mirror.now(db)   // the server's time: stamps of edits made here
            for record in allRecords { for field in record.fields.values { clock.observe(field.stamp.time) } }
            for (key, fields) in finalPending {
                // A resolver's choice is a new edit here, later than everything seen.
                let stamped = fields.mapValues { $0 == .freshEdit ? HLCStamp(time: clock.tick(at: now), device: deviceID) : $0 }
                try SyncMetadata.setPendingFields(stamped, entity: key.entity, primaryKey: key.primaryKey, db)
            }
            // Records that lost a unique key to another: deleted on the server, never applied again.
            for name in goneNames {
                let stamp = HLCStamp(time: clock.tick(at: now), device: deviceID)
                try db.execute(sql: "INSERT OR REPLACE INTO ANIMBUSCLOUDDELETION (ZRECORDNAME, ZENTITY, ZTIME, ZDEVICE, ZZONE) VALUES (?, 0, ?, ?, ?)",
                               arguments: [name, stamp.time, stamp.device, lane?.key])
                try db.execute(sql: "INSERT OR IGNORE INTO ANIMBUSCLOUDTOMBSTONE (ZRECORDNAME) VALUES (?)", arguments: [name])
            }
            for merge in merges {
                let fresh = HLCStamp(time: clock.tick(at: now), device: deviceID)
                let winner = ObjectKey(permanent[merge.winner] ?? merge.winner)
                try SyncMetadata.addPendingFields(merge.winnerFields.mapValues { $0 == .freshEdit ? fresh : $0 },
                                                  entity: winner.entity, primaryKey: winner.primaryKey, db)
                for (member, property) in merge.memberFields {
                    let key = ObjectKey(permanent[member] ?? member)
                    try SyncMetadata.addPendingFields([property: fresh], entity: key.entity, primaryKey: key.primaryKey, db)
                }
                for link in merge.links {
                    try LinkRow.set(key: link.key, first: ObjectKey(permanent[link.first] ?? link.first),
                                    second: ObjectKey(permanent[link.second] ?? link.second), linked: true, stamp: fresh, pending: true, db)
                }
            }
            for (key, first, second, linked, stamp) in linkRows {
                let a = permanent[first] ?? first, b = permanent[second] ?? second
                try LinkRow.set(key: key, first: ObjectKey(a), second: ObjectKey(b), linked: linked, stamp: stamp, pending: false, db)
            }
            for id in cascaded {
                guard let row = try SyncMetadata.record(entity: id.entity.entityNumber, primaryKey: id.primaryKey, db),
                      !finalRemoved.contains(row.recordName) else { continue }
                let stamp = HLCStamp(time: clock.tick(at: now), device: deviceID)
                let zone = try Placement.zone(entity: row.entity, primaryKey: row.primaryKey, db)
                try db.execute(sql: "INSERT OR REPLACE INTO ANIMBUSCLOUDDELETION (ZRECORDNAME, ZENTITY, ZTIME, ZDEVICE, ZZONE) VALUES (?, ?, ?, ?, ?)",
                               arguments: [row.recordName, row.entity, stamp.time, stamp.device, zone])
                try SyncMetadata.removeRecord(named: row.recordName, db)
                if zone != nil { try Placement.place(entity: row.entity, primaryKey: row.primaryKey, in: nil, db) }
            }
            for id in cascaded {
                try SyncMetadata.setPendingFields([:], entity: id.entity.entityNumber, primaryKey: id.primaryKey, db)
            }
            try clock.save(db)
            for name in finalRemoved {
                if let row = try SyncMetadata.record(named: name, db) {
                    try SyncMetadata.setPendingFields([:], entity: row.entity, primaryKey: row.primaryKey, db)
                    try Placement.place(entity: row.entity, primaryKey: row.primaryKey, in: nil, db)
                }
                try SyncMetadata.removeRecord(named: name, db)
                try db.execute(sql: "DELETE FROM ANIMBUSCLOUDDELETION WHERE ZRECORDNAME = ?", arguments: [name])
            }
            for name in unparkedNames { try db.execute(sql: "DELETE FROM ANIMBUSCLOUDPARKED WHERE ZRECORDNAME = ?", arguments: [name]) }
            for (record, waiting) in parkedList { try ParkedRecords.park(record, waitingFor: waiting, zone: lane?.key, db) }
            for name in conflictNames { try Conflicts.record(name, db) }
            try Quarantine.remove(settledNames, db)
            for (record, reason) in setAside { try Quarantine.add(record, reason: reason, zone: lane?.key, db) }
            if let token { try (lane ?? .defaultZone(mirror.zoneID)).setToken(token, db) }
            _ = captureCursorCheck
        }
        return stats
    }

    static func hasUncapturedEdits(after cursor: Int64, author: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM ATRANSACTION t LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS
                           WHERE t.Z_PK > ? AND (a.ZNAME IS NULL OR a.ZNAME != ?))
            """, arguments: [cursor, author]) ?? false
    }

    // MARK: Helpers

    /// A local object with the same unique key as an incoming record of an entity with a
    /// uniqueness constraint (created on two devices: they become one).
    /// Objects in `excluded` (those this page updates: their keys may be changing) don't count.
    private func uniqueTwin(of record: Record, entity: EntityDescription, excluding excluded: Set<ManagedObjectID>) throws -> ManagedObject? {
        guard let constraint = entity.rootEntity.uniquenessConstraints.first, !constraint.isEmpty else { return nil }
        var format: [String] = []
        var arguments: [Any?] = []
        for key in constraint {
            guard case let .attribute(attribute)? = mirror.mirrored.role(of: key, in: entity),
                  let (field, _) = effectiveField(key, in: record) else { return nil }
            let value = try value(of: field, for: attribute)
            format.append("%K == %@")
            arguments += [key, value.anyValue(for: attribute.type)]
        }
        var request = FetchRequest<ManagedObject>(entityName: entity.rootEntity.name)
        if !excluded.isEmpty {
            format.append("NOT (SELF IN %@)")
            arguments.append(Array(excluded))
        }
        request.predicate = try QueryPredicate(format: format.joined(separator: " AND "), argumentArray: arguments)
        request.fetchLimit = 1
        request.affectedStores = [mirror.store]   // (a shared store holds the same entities)
        return try context.fetch(request).first
    }

    /// A property's value in a record: the inline field or its asset, whichever is later.
    private func effectiveField(_ property: String, in record: Record?) -> (Field, HLCStamp)? {
        guard let record else { return nil }
        let plain = record.fields[MirroredModel.fieldName(property)]
        let asset = record.fields[MirroredModel.assetFieldName(property)]
        switch (plain, asset) {
        case let (plain?, asset?):
            // Moving a value to an asset clears the inline field with the same stamp.
            let assetWins = asset.value != nil && (asset.stamp > plain.stamp || (asset.stamp == plain.stamp && plain.value == nil))
            return assetWins ? (asset, asset.stamp) : (plain, plain.stamp)
        case let (plain?, nil): return (plain, plain.stamp)
        case let (nil, asset?): return (asset, asset.stamp)
        default: return nil
        }
    }

    /// The asset this device must download to apply a record's value of `property`: none when
    /// the value is inline, when the device applied that field already (its own export coming
    /// back, a field unchanged since), or when it holds that very asset.
    private func assetToApply(_ property: String, in record: Record, ancestor: Record?, pending: HLCStamp?) -> AssetReference? {
        guard let (field, stamp) = effectiveField(property, in: record), case let .asset(reference)? = field.value else { return nil }
        if !replaying, let applied = effectiveField(property, in: ancestor)?.1, stamp <= applied { return nil }
        if holdsAsset(of: field, property, ancestor: ancestor, pending: pending) { return nil }
        return reference
    }

    /// Whether the object already holds an asset field's bytes: the value it applied or sent
    /// last is that same asset, and it has no local edit of the property since.
    private func holdsAsset(of field: Field, _ property: String, ancestor: Record?, pending: HLCStamp?) -> Bool {
        guard !replaying, pending == nil, case let .asset(incoming)? = field.value,
              case let .asset(held)? = effectiveField(property, in: ancestor)?.0.value else { return false }
        return held.checksum == incoming.checksum
    }

    private func value(of field: Field, for attribute: AttributeDescription) throws -> PropertyValue {
        if case let .asset(reference)? = field.value {
            guard let data = try assets.bytes(reference) else { throw NeedsAssets(references: [reference]) }
            return try FieldConversion.propertyValue(assetBytes: data, for: attribute)
        }
        return try FieldConversion.propertyValue(field.value, for: attribute)
    }
}
