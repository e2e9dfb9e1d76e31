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
    /// Asset bytes by checksum, downloaded before the page is applied.
    let assets: [String: Data]

    /// Thrown when a local save slipped in after the capture: the page is applied again.
    struct UncapturedEdits: Error {}

    struct Stats: Sendable {
        var applied = 0
        var deleted = 0
        var parked = 0
        var conflicts = 0
    }

    /// Known metadata for the records of a page.
    private struct Known {
        var rows: [String: SyncMetadata.RecordRow] = [:]
        var pending: [ObjectKey: [String: HLCStamp]] = [:]
        var tombstones: Set<String> = []
        var links: [String: (linked: Bool, stamp: HLCStamp, pending: Bool)] = [:]
    }

    func apply(records incoming: [Record], deletions: [DeletedRecord], token: ChangeToken?) throws -> Stats {
        var stats = Stats()
        let deletedNames = Set(deletions.map(\.recordName))
        // Parked records waiting for what arrives now are tried again with this page.
        // (A record unparked now may itself be what another parked record waits for.)
        var arriving = Set(incoming.map(\.recordName)).union(deletedNames)
        var unparked: [Record] = []
        var newlyArriving = arriving
        while !newlyArriving.isEmpty {
            let found = try mirror.store.readTransaction { db in try ParkedRecords.waiting(for: Array(newlyArriving), db) }
                .filter { record in !unparked.contains { $0.recordName == record.recordName } }
            unparked += found
            newlyArriving = Set(found.map(\.recordName)).subtracting(arriving)
            arriving.formUnion(newlyArriving)
        }
        var records = incoming
        records += unparked.filter { parked in !incoming.contains { $0.recordName == parked.recordName } }

        let known = try load(records, deletions: deletions)
        // Records whose every field this device already holds (its own exports coming back).
        let current = Set(records.filter { record in
            guard let ancestor = known.rows[record.recordName]?.ancestor else { return false }
            return record.fields.allSatisfy { key, field in ancestor.fields[key].map { field.stamp <= $0.stamp } ?? false }
        }.map(\.recordName))
        records.removeAll { current.contains($0.recordName) }
        let model = context.managedObjectModel
        // Every object the page names, one fetch per inheritance hierarchy.
        var loaded: [ManagedObjectID: ManagedObject] = [:]
        let ids = known.rows.values.filter { !current.contains($0.recordName) }.map { mirror.store.objectID(for: model.entities[$0.entity - 1], primaryKey: $0.primaryKey) }
        for (_, group) in Dictionary(grouping: ids, by: { $0.entity.rootEntityNumber }) {
            var request = FetchRequest<ManagedObject>(entityName: group[0].entity.rootEntity.name)
            request.predicate = try QueryPredicate(format: "SELF IN %@", argumentArray: [group])
            for object in try context.fetch(request) { loaded[object.objectID] = object }
        }
        // Objects not loaded above (their records were skipped as already held) are read
        // one by one when a reference or membership needs them.
        func existing(_ row: SyncMetadata.RecordRow) throws -> ManagedObject? {
            let id = mirror.store.objectID(for: model.entities[row.entity - 1], primaryKey: row.primaryKey)
            if let object = loaded[id] { return object }
            let object = try Exporter.existing(id, context)
            loaded[id] = object
            return object
        }
        var tombstones = known.tombstones.union(deletedNames)

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

        var objects: [String: ManagedObject] = [:]
        var remapped = Set<ManagedObjectID>()   // local objects this page gives another record name
        var newObjects: [(ManagedObject, String)] = []
        var ancestors: [String: Record] = [:]
        var pendingUpdates: [ObjectKey: [String: HLCStamp]] = [:]
        var conflicted: [String] = []

        // 1. Objects and their scalar fields.
        for record in objectRecords where candidates.contains(record.recordName) {
            guard let entity = entity(of: record, known: known.rows[record.recordName], model: model) else { continue }
            let object: ManagedObject
            var pending: [String: HLCStamp] = [:]
            if let row = known.rows[record.recordName] {
                guard let found = try existing(row), !found.isDeleted else { continue }   // deleted here; its deletion is on the way
                object = found
                pending = known.pending[ObjectKey(found.objectID)] ?? [:]
            } else if let twin = try uniqueTwin(of: record, entity: entity) {
                object = twin
                pending = try mirror.store.readTransaction { db in
                    try SyncMetadata.pendingFields(entity: twin.objectID.entity.entityNumber, primaryKey: twin.objectID.primaryKey, db)
                } ?? [:]
                newObjects.append((twin, record.recordName))
                remapped.insert(twin.objectID)
            } else {
                object = try context.insertNewObject(forEntityName: entity.name)
                newObjects.append((object, record.recordName))
            }
            objects[record.recordName] = object
            let ancestor = known.rows[record.recordName]?.ancestor
            var lost = pending
            for (name, role) in mirror.mirrored.roles[entity.name] ?? [:] {
                guard case let .attribute(attribute) = role, let (field, stamp) = effectiveField(name, in: record) else { continue }
                if let applied = effectiveField(name, in: ancestor)?.1, stamp <= applied { continue }
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
            }
            if lost != pending, !object.objectID.isTemporaryID { pendingUpdates[ObjectKey(object.objectID)] = lost }
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
                if let applied = ancestor?.fields[MirroredModel.fieldName(name)]?.stamp, field.stamp <= applied { continue }
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
            guard let relationship = link.firstRelationship else { continue }
            if link.linked { try first.addObjects([second], toRelationship: relationship) }
            else { try first.removeObjects([second], fromRelationship: relationship) }
            linkUpdates.append((link.key, first, second, link.linked, link.stamp))
        }

        // 4. Deletions.
        var removedNames = Set<String>()
        for deletion in deletions {
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
        let unparkedNames = Set(unparked.map(\.recordName)).subtracting(parked.keys)
        let importAuthor = mirror.importAuthor
        let captureCursorCheck = mirror.store
        let newNames = newObjects.map { ($0.0.objectID, $0.1) }
        let renamed = Array(remapped)
        let linkRows = linkUpdates.map { ($0.0, $0.1.objectID, $0.2.objectID, $0.3, $0.4) }
        let deviceID = mirror.deviceID
        let conflictNames = Array(Set(conflicted))
        let finalPending = pendingUpdates
        let finalAncestors = ancestors
        let parkedList = parkedRecords.map { ($0, parked[$0.recordName]!) }
        let finalRemoved = removedNames
        let allRecords = records
        try context.save(in: mirror.store) { db, permanent in
            // A local save after the capture would be overwritten silently: apply again.
            let cursor = Int64.fromDatabaseValue(try SyncMetadata.state(.historyCursor, db)) ?? 0
            if try Self.hasUncapturedEdits(after: cursor, author: importAuthor, db) { throw UncapturedEdits() }
            for (id, name) in newNames {
                let permanentID = permanent[id] ?? id
                try db.execute(sql: "INSERT OR REPLACE INTO ANIMBUSCLOUDRECORD (ZENTITY, ZPK, ZRECORDNAME) VALUES (?, ?, ?)",
                               arguments: [permanentID.entity.entityNumber, permanentID.primaryKey, name])
            }
            // An object matched to a newer record of its unique key had its memberships sent
            // under its old name, which the other devices no longer resolve (that record was
            // deleted): they go again under the new one.
            for id in renamed {
                try db.execute(sql: """
                    UPDATE ANIMBUSCLOUDLINK SET ZPENDING = 1 WHERE (ZFIRSTENTITY = ?1 AND ZFIRSTPK = ?2) OR (ZSECONDENTITY = ?1 AND ZSECONDPK = ?2)
                    """, arguments: [id.entity.entityNumber, id.primaryKey])
            }
            for (_, ancestor) in finalAncestors { try SyncMetadata.confirm(ancestor, db) }
            var clock = try HybridLogicalClock.load(db)
            for record in allRecords { for field in record.fields.values { clock.observe(field.stamp.time) } }
            for (key, fields) in finalPending {
                // A resolver's choice is a new edit here, later than everything seen.
                let stamped = fields.mapValues { $0 == .freshEdit ? HLCStamp(time: clock.tick(at: Date()), device: deviceID) : $0 }
                try SyncMetadata.setPendingFields(stamped, entity: key.entity, primaryKey: key.primaryKey, db)
            }
            for (key, first, second, linked, stamp) in linkRows {
                let a = permanent[first] ?? first, b = permanent[second] ?? second
                try LinkRow.set(key: key, first: ObjectKey(a), second: ObjectKey(b), linked: linked, stamp: stamp, pending: false, db)
            }
            for id in cascaded {
                guard let row = try SyncMetadata.record(entity: id.entity.entityNumber, primaryKey: id.primaryKey, db),
                      !finalRemoved.contains(row.recordName) else { continue }
                let stamp = HLCStamp(time: clock.tick(at: Date()), device: deviceID)
                try db.execute(sql: "INSERT OR REPLACE INTO ANIMBUSCLOUDDELETION (ZRECORDNAME, ZENTITY, ZTIME, ZDEVICE) VALUES (?, ?, ?, ?)",
                               arguments: [row.recordName, row.entity, stamp.time, stamp.device])
                try SyncMetadata.removeRecord(named: row.recordName, db)
            }
            for id in cascaded {
                try SyncMetadata.setPendingFields([:], entity: id.entity.entityNumber, primaryKey: id.primaryKey, db)
            }
            try clock.save(db)
            for name in finalRemoved {
                if let row = try SyncMetadata.record(named: name, db) {
                    try SyncMetadata.setPendingFields([:], entity: row.entity, primaryKey: row.primaryKey, db)
                }
                try SyncMetadata.removeRecord(named: name, db)
                try db.execute(sql: "DELETE FROM ANIMBUSCLOUDDELETION WHERE ZRECORDNAME = ?", arguments: [name])
            }
            for name in unparkedNames { try db.execute(sql: "DELETE FROM ANIMBUSCLOUDPARKED WHERE ZRECORDNAME = ?", arguments: [name]) }
            for (record, waiting) in parkedList { try ParkedRecords.park(record, waitingFor: waiting, db) }
            for name in conflictNames { try Conflicts.record(name, db) }
            if let token { try SyncMetadata.setState(.zoneToken, token.rawValue, db) }
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

    private func load(_ records: [Record], deletions: [DeletedRecord]) throws -> Known {
        var names = Set(records.map(\.recordName)).union(deletions.map(\.recordName))
        for record in records { names.formUnion(references(of: record)) }
        for record in records { if let link = LinkRecord(record) { names.insert(link.first); names.insert(link.second) } }
        return try mirror.store.readTransaction { db in
            var known = Known()
            for name in names {
                if let row = try SyncMetadata.record(named: name, db) {
                    known.rows[name] = row
                    if let pending = try SyncMetadata.pendingFields(entity: row.entity, primaryKey: row.primaryKey, db) {
                        known.pending[ObjectKey(entity: row.entity, primaryKey: row.primaryKey)] = pending
                    }
                } else if try SyncMetadata.isTombstoned(name, db) {
                    known.tombstones.insert(name)
                }
            }
            for record in records {
                guard let link = LinkRecord(record), let first = known.rows[link.first], let second = known.rows[link.second],
                      let row = try Row.fetchOne(db, sql: """
                        SELECT ZLINKED, ZTIME, ZDEVICE, ZPENDING FROM ANIMBUSCLOUDLINK WHERE ZRELATIONSHIP = ? AND ZFIRSTENTITY = ?
                        AND ZFIRSTPK = ? AND ZSECONDENTITY = ? AND ZSECONDPK = ?
                        """, arguments: [link.key, first.entity, first.primaryKey, second.entity, second.primaryKey]) else { continue }
                known.links["\(link.key)#\(link.first)#\(link.second)"] = (row[0], HLCStamp(time: row[1], device: row[2]), row[3])
            }
            return known
        }
    }

    /// The names of the records a record's to-one fields refer to.
    private func references(of record: Record) -> [String] {
        guard let entity = entity(of: record, known: nil, model: context.managedObjectModel) else { return [] }
        return (mirror.mirrored.roles[entity.name] ?? [:]).compactMap { name, role in
            guard case .toOne = role, case let .string(target)? = record.fields[MirroredModel.fieldName(name)]?.value else { return nil }
            return target
        }
    }

    private func entity(of record: Record, known: SyncMetadata.RecordRow?, model: ManagedObjectModel) -> EntityDescription? {
        if case let .string(name)? = record.fields[MirroredModel.entityNameField]?.value ?? known?.ancestor?.fields[MirroredModel.entityNameField]?.value,
           let entity = model.entitiesByName[name], mirror.mirrored.roles[name] != nil {
            return entity
        }
        if let row = known { return model.entities[row.entity - 1] }
        return nil
    }

    /// A local object with the same unique key as an incoming record of an entity with a
    /// uniqueness constraint (created on two devices: they become one).
    private func uniqueTwin(of record: Record, entity: EntityDescription) throws -> ManagedObject? {
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
        request.predicate = try QueryPredicate(format: format.joined(separator: " AND "), argumentArray: arguments)
        request.fetchLimit = 1
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

    private func value(of field: Field, for attribute: AttributeDescription) throws -> PropertyValue {
        if case let .asset(reference)? = field.value {
            guard let data = assets[reference.checksum] else {
                throw CloudError(.server, "asset \(reference.checksum) of CD_\(attribute.name) was not downloaded")
            }
            return try FieldConversion.propertyValue(assetBytes: data, for: attribute)
        }
        return try FieldConversion.propertyValue(field.value, for: attribute)
    }
}
