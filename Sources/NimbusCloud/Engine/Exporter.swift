import Foundation
import GRDB
import struct NimbusWire.Record
import Logging
import Nimbus
import NimbusWire

/// Sends what was saved locally: captures history into the outbox, builds records from the
/// current rows (parents first, deletions children first, memberships as `CDMR` records),
/// uploads their assets, sends batches within the server's limits (halving on
/// `limitExceeded`) and records each confirmation in the store file.
///
/// Nothing is dropped on an error: an item the server refused stays pending with its
/// attempt count raised, and the error reaches the caller.
struct Exporter: Sendable {
    let mirror: StoreMirror
    /// The zone to export; `nil` when the store has no zone besides its default one (see
    /// ``ZoneLane``).
    var lane: ZoneLane? = nil

    /// The zone exported.
    var zone: ZoneLane { lane ?? .defaultZone(mirror.zoneID) }

    /// What one export did.
    struct Outcome: Sendable {
        var sent = 0
        var confirmed = 0
        /// Records the server holds as deleted: the importer removes them locally.
        var deletedOnServer: [String] = []
        var itemErrors: [CloudError] = []
    }

    /// Exports until nothing is pending or an item keeps failing; returns what happened.
    func run(progress: @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> Outcome {
        var outcome = Outcome()
        // Markers of objects moved into share zones go before the default zone's other changes.
        if zone.key == nil { try await MovedRecords.sendMarkers(mirror) }
        var rounds = 0
        while true {
            rounds += 1
            let started = ContinuousClock.now
            let plan = try await prepare(limit: Self.itemsPerRound)
            let prepared = ContinuousClock.now
            if plan.isEmpty { break }
            for (checksum, data) in plan.assets {
                let reference = try await mirror.transport.uploadAsset(data)
                guard reference.checksum == checksum else {
                    throw CloudError(.server, "the server stored asset \(checksum) as \(reference.checksum)")
                }
            }
            var maximumItems = ModifyRecordsRequest.maximumItems
            var pendingBatches = plan.batches(maximumItems: maximumItems, maximumBytes: ModifyRecordsRequest.maximumBodyBytes * 9 / 10)
            var failedThisRound = 0
            var settledThisRound = 0
            var sending = Duration.zero, recording = Duration.zero
            // One batch in flight while the answer to the one before it is recorded (pipelining):
            // batches still reach the server one at a time and in order.
            let mirror = self.mirror
            func launch() throws -> InFlightBatch? {
                guard !pendingBatches.isEmpty else { return nil }
                let batch = pendingBatches.removeFirst()
                let (firstSaves, sentBefore) = try markFirstSaves(batch, plan: plan)
                let transport = mirror.transport, zone = self.zone.zoneID
                return InFlightBatch(batch: batch, firstSaves: firstSaves, sentBefore: sentBefore,
                                     task: Task { try await transport.modify(batch, in: zone) })
            }
            var current = try launch()
            defer { current?.task.cancel() }
            while let inFlight = current {
                let batch = inFlight.batch, firstSaves = inFlight.firstSaves, sentBefore = inFlight.sentBefore
                let response: ModifyRecordsResponse
                do {
                    let sent = ContinuousClock.now
                    response = try await inFlight.task.value
                    sending += ContinuousClock.now - sent
                    current = nil
                } catch let error as CloudError where error.code == .limitExceeded && batch.saves.count + batch.deletions.count > 1 {
                    // Halve and try again.
                    maximumItems = max(1, (batch.saves.count + batch.deletions.count) / 2)
                    mirror.log.info("export batch of \(batch.saves.count + batch.deletions.count) over the server's limit; halving")
                    var halves = ExportPlan()
                    halves.saves = batch.saves
                    halves.deletions = batch.deletions
                    pendingBatches.insert(contentsOf: halves.batches(maximumItems: maximumItems, maximumBytes: .max), at: 0)
                    current = try launch()
                    continue
                }
                current = try launch()
                outcome.sent += batch.saves.count + batch.deletions.count
                let recordStarted = ContinuousClock.now
                let ownDevice = try await ownDeviceIfNeeded(response, sentBefore: sentBefore)
                let recorded = try record(response, plan: plan, firstSaves: firstSaves, sentBefore: sentBefore, ownDevice: ownDevice)
                recording += ContinuousClock.now - recordStarted
                outcome.confirmed += recorded.confirmed
                settledThisRound += recorded.settled + recorded.deletedOnServer.count
                outcome.deletedOnServer += recorded.deletedOnServer
                outcome.itemErrors += recorded.errors
                failedThisRound += recorded.errors.count
                progress(outcome.sent, outcome.sent + pendingBatches.reduce(0) { $0 + $1.saves.count + $1.deletions.count })
            }
            // Items that failed stay pending; don't spin on them within one run.
            mirror.log.debug("export round: \(plan.count) items, prepared in \(prepared - started), sent in \(sending), recorded in \(recording)")
            if failedThisRound > 0 || settledThisRound == 0 { break }
        }
        return outcome
    }

    /// Items read from the outbox per round: several batches, sent one after another.
    static let itemsPerRound = ModifyRecordsRequest.maximumItems * 5

    /// A batch sent and not answered yet, with what its answer is recorded against.
    struct InFlightBatch {
        var batch: ModifyRecordsRequest
        var firstSaves: Set<String>
        var sentBefore: Set<String>
        var task: Task<ModifyRecordsResponse, any Error>
    }

    // MARK: Planning

    /// Captures history, reads what is pending, names new records and builds the batch.
    func prepare(limit: Int) async throws -> ExportPlan {
        let mirror = self.mirror
        let lane = self.lane
        let work = try mirror.store.writeTransaction { db -> PendingWork in
            try mirror.capture.capture(db)
            return try PendingWork.read(store: mirror.store, limit: limit, depth: mirror.depth, lane: lane, db)
        }
        if work.isEmpty { return ExportPlan() }
        let context = mirror.exportContext
        return try await context.perform {
            defer { context.reset() }
            return try Self.build(work, mirror: mirror, lane: lane, context: context)
        }
    }

    private static func build(_ work: PendingWork, mirror: StoreMirror, lane: ZoneLane?, context: ManagedObjectContext) throws -> ExportPlan {
        // Related objects in another zone: references to them are not sent (decision 0070).
        var zones: [ManagedObjectID: String?] = [:]
        func isElsewhere(_ id: ManagedObjectID) throws -> Bool {
            guard let lane else { return false }
            if let known = zones[id] { return known != lane.key }
            let zone = try mirror.store.readTransaction { db in try Placement.zone(entity: id.entity.entityNumber, primaryKey: id.primaryKey, db) }
            zones[id] = zone
            return zone != lane.key
        }
        var plan = ExportPlan()
        var names: [ManagedObjectID: String] = [:]
        var newNames: [(ObjectKey, String)] = []
        var objects: [(PendingWork.Object, ManagedObject)] = []
        // Known names, then names for objects (and their to-one destinations) that have none.
        // A pending object without a name in the outbox read has none in the store either.
        var unnamed = Set<ManagedObjectID>()
        for object in work.objects {
            if let name = object.recordName { names[object.id] = name } else { unnamed.insert(object.id) }
        }
        func name(for id: ManagedObjectID, object: ManagedObject?) throws -> String? {
            if let name = names[id] { return name }
            if !unnamed.contains(id),
               let row = try mirror.store.readTransaction({ db in try SyncMetadata.record(entity: id.entity.entityNumber, primaryKey: id.primaryKey, db) }) {
                names[id] = row.recordName
                return row.recordName
            }
            guard let object = try object ?? Self.existing(id, context) else { return nil }
            var values: [String: PropertyValue] = [:]
            for key in id.entity.rootEntity.uniquenessConstraints.first ?? [] { values[key] = object.primitiveValue(forKey: key) ?? .null }
            var name = RecordNames.random()
            if var unique = RecordNames.uniqueName(entity: id.entity, values: values) {
                // The key's name is taken when its record was deleted (a tombstone), or when
                // another object holds it (its unique key was edited since it was named, or
                // a name given earlier in this batch): the key's next generation, as every
                // device that knows the same derives it.
                var generation = 0
                func taken(_ name: String) throws -> Bool {
                    if newNames.contains(where: { $0.1 == name && $0.0 != ObjectKey(id) }) { return true }
                    return try mirror.store.readTransaction { db in
                        if try SyncMetadata.isTombstoned(name, db) { return true }
                        guard let row = try SyncMetadata.record(named: name, db) else { return false }
                        return row.entity != id.entity.entityNumber || row.primaryKey != id.primaryKey
                    }
                }
                while try taken(unique) {
                    generation += 1
                    unique = RecordNames.uniqueName(entity: id.entity, values: values, generation: generation) ?? unique
                }
                name = unique
            }
            names[id] = name
            newNames.append((ObjectKey(id), name))
            return name
        }
        // The pending objects, one fetch per inheritance hierarchy.
        var fetched: [ManagedObjectID: ManagedObject] = [:]
        for (_, items) in Dictionary(grouping: work.objects, by: { $0.id.entity.rootEntityNumber }) {
            var request = FetchRequest<ManagedObject>(entityName: items[0].id.entity.rootEntity.name)
            request.predicate = try QueryPredicate(format: "SELF IN %@", argumentArray: [items.map(\.id)])
            request.affectedStores = [mirror.store]
            for object in try context.fetch(request) { fetched[object.objectID] = object }
        }
        for pending in work.objects {
            guard let object = fetched[pending.id] else { continue }   // deleted: captured next round
            _ = try name(for: pending.id, object: object)
            for (property, _) in pending.fields {
                if case .toOne? = mirror.mirrored.role(of: property, in: object.entity),
                   let destination = object.value(forKey: property) as? ManagedObject, try !isElsewhere(destination.objectID) {
                    _ = try name(for: destination.objectID, object: destination)
                }
            }
            objects.append((pending, object))
        }
        var links: [(PendingWork.Link, String, String)] = []
        for link in work.links {
            guard let first = try name(for: link.first, object: nil), let second = try name(for: link.second, object: nil) else {
                // An end is gone: its deletion covers the membership.
                try mirror.store.writeTransaction { db in
                    try db.execute(sql: """
                        DELETE FROM ANIMBUSCLOUDLINK WHERE ZRELATIONSHIP = ? AND ZFIRSTENTITY = ? AND ZFIRSTPK = ? AND ZSECONDENTITY = ? AND ZSECONDPK = ?
                        """, arguments: [link.key, link.first.entity.entityNumber, link.first.primaryKey, link.second.entity.entityNumber, link.second.primaryKey])
                }
                continue
            }
            links.append((link, first, second))
        }
        if !newNames.isEmpty {
            try mirror.store.writeTransaction { db in
                for (key, name) in newNames {
                    if let existing = try SyncMetadata.record(named: name, db), existing.entity != key.entity || existing.primaryKey != key.primaryKey {
                        throw CloudError(.server, "record \(name) is already mapped to another object: the store holds two objects with one unique key")
                    }
                    try db.cachedStatement(sql: "INSERT OR IGNORE INTO ANIMBUSCLOUDRECORD (ZENTITY, ZPK, ZRECORDNAME) VALUES (?, ?, ?)")
                        .execute(arguments: [key.entity, key.primaryKey, name])
                }
            }
        }
        let builder = RecordBuilder(mirrored: mirror.mirrored)
        for (pending, object) in objects {
            guard let recordName = names[pending.id] else { continue }
            let outgoing = try builder.record(for: object, name: recordName, pending: pending.fields,
                                              recordName: { names[$0] }, isElsewhere: isElsewhere)
            var record = outgoing.record
            record.changeTag = pending.changeTag
            plan.saves.append(record)
            plan.assets.merge(outgoing.assets) { a, _ in a }
            plan.items[recordName] = .object(ObjectKey(pending.id), sent: outgoing.sentStamps)
        }
        for (link, first, second) in links {
            let record = RecordBuilder.linkRecord(key: link.key, first: (link.first.entity.name, first),
                                                  second: (link.second.entity.name, second), linked: link.linked, stamp: link.stamp)
            plan.saves.append(record)
            plan.items[record.recordName] = .link(key: link.key, first: ObjectKey(link.first), second: ObjectKey(link.second), stamp: link.stamp)
        }
        for deletion in work.deletions {
            // An object made again under the name of a deleted one (a unique key): the deletion
            // goes first, alone, since the server refuses a batch naming a record twice; the
            // save follows in the next batch and meets the tombstone (deletion wins).
            plan.saves.removeAll { $0.recordName == deletion.name }
            plan.deletions.append(RecordDeletion(recordName: deletion.name, stamp: deletion.stamp))
            plan.items[deletion.name] = .deletion
        }
        return plan
    }

    /// The object of `id`, or `nil` when its row is gone (other read errors reach the caller).
    static func existing(_ id: ManagedObjectID, _ context: ManagedObjectContext) throws -> ManagedObject? {
        do { return try context.existingObject(with: id) } catch let error as NimbusError where error.code == .objectNotFound { return nil }
    }

    // MARK: Recording the answer

    /// Whether the object `end` (of an entity with a uniqueness constraint) was never
    /// confirmed by the server under its record name, or has just lost that name: its save
    /// met the tombstone of a deleted record with the same key, and it takes the key's next
    /// generation of record name.
    private func movesToNextGeneration(_ end: ObjectKey, _ db: Database) throws -> Bool {
        guard let entity = mirror.store.entity(number: end.entity),
              !(entity.rootEntity.uniquenessConstraints.first ?? []).isEmpty else { return false }
        guard let row = try SyncMetadata.record(entity: end.entity, primaryKey: end.primaryKey, db) else { return true }
        return row.changeTag == nil
    }

    /// Before a batch goes out, records the first saves of unique-keyed objects in it (see
    /// ``FirstSaves``); returns them, and those of them sent before.
    private func markFirstSaves(_ batch: ModifyRecordsRequest, plan: ExportPlan) throws -> (all: Set<String>, sentBefore: Set<String>) {
        let candidates = batch.saves.compactMap { record -> ObjectKey? in
            guard case let .object(key, _)? = plan.items[record.recordName],
                  let entity = mirror.store.entity(number: key.entity),
                  !(entity.rootEntity.uniquenessConstraints.first ?? []).isEmpty else { return nil }
            return key
        }
        if candidates.isEmpty { return ([], []) }
        return try mirror.store.writeTransaction { db in
            var names: [String] = []
            for key in candidates {
                if let row = try SyncMetadata.record(entity: key.entity, primaryKey: key.primaryKey, db), row.changeTag == nil {
                    names.append(row.recordName)
                }
            }
            return (Set(names), try FirstSaves.markSent(names, db))
        }
    }

    /// The server's id of this device, asked only when a save sent before met a tombstone.
    private func ownDeviceIfNeeded(_ response: ModifyRecordsResponse, sentBefore: Set<String>) async throws -> String? {
        guard response.results.contains(where: { $0.error?.code == .unknownItem && sentBefore.contains($0.recordName) }) else { return nil }
        return try await mirror.transport.account().deviceID
    }

    /// Records the server's answer; `settled` counts the items no longer pending (an item the
    /// server confirmed but that stays pending for the conflict resolver is not settled).
    /// `sentBefore` and `ownDevice` tell a unique-keyed object's own deleted record from
    /// another's (see ``FirstSaves``); `firstSaves` are forgotten once confirmed.
    private func record(_ response: ModifyRecordsResponse, plan: ExportPlan, firstSaves: Set<String>, sentBefore: Set<String>,
                        ownDevice: String?) throws -> (confirmed: Int, settled: Int, deletedOnServer: [String], errors: [CloudError]) {
        try mirror.store.writeTransaction { db in
            var confirmed = 0
            var settled = 0
            var deletedOnServer: [String] = []
            var errors: [CloudError] = []
            for result in response.results {
                guard let item = plan.items[result.recordName] else { continue }
                switch (result.status, item) {
                case let (.saved, .object(key, sent)):
                    if let record = result.record { try Ancestor.merge(record, sent: sent, db) }
                    if firstSaves.contains(result.recordName) { try FirstSaves.forget(result.recordName, db) }
                    var pending = try SyncMetadata.pendingFields(entity: key.entity, primaryKey: key.primaryKey, db) ?? [:]
                    let entityName = mirror.store.entity(number: key.entity)?.name ?? ""
                    let hasResolver = mirror.resolver(entityName) != nil
                    for (field, stamp) in sent where pending[field].map({ $0 <= stamp }) ?? false {
                        if let record = result.record, !Ancestor.holds(record, field: field, stamp: stamp) {
                            // The server kept a later edit from elsewhere: a conflict. With a
                            // resolver the edit stays pending, so that the import asks it.
                            try Conflicts.record(result.recordName, db)
                            if hasResolver { continue }
                        }
                        pending[field] = nil
                    }
                    try SyncMetadata.setPendingFields(pending, entity: key.entity, primaryKey: key.primaryKey, db)
                    confirmed += 1
                    if !sent.keys.contains(where: { pending[$0] == sent[$0] }) { settled += 1 }
                case let (.saved, .link(key, first, second, stamp)):
                    if try movesToNextGeneration(first, db) || movesToNextGeneration(second, db) {
                        // Saved under an end's old name, which that end just lost: the
                        // membership goes again under the end's new name.
                        continue
                    }
                    try db.execute(sql: """
                        UPDATE ANIMBUSCLOUDLINK SET ZPENDING = 0 WHERE ZRELATIONSHIP = ? AND ZFIRSTENTITY = ? AND ZFIRSTPK = ?
                        AND ZSECONDENTITY = ? AND ZSECONDPK = ? AND ZTIME = ? AND ZDEVICE = ?
                        """, arguments: [key, first.entity, first.primaryKey, second.entity, second.primaryKey, stamp.time, stamp.device])
                    confirmed += 1
                    settled += 1
                case (.deleted, _):
                    try db.execute(sql: "DELETE FROM ANIMBUSCLOUDDELETION WHERE ZRECORDNAME = ?", arguments: [result.recordName])
                    confirmed += 1
                    settled += 1
                case (.failed, _):
                    let error = result.error
                    if error?.code == .unknownItem {
                        // The record is a tombstone on the server: deletion wins.
                        if case .link(let key, let first, let second, _) = item {
                            if try movesToNextGeneration(first, db) || movesToNextGeneration(second, db) {
                                // The membership was named after an end whose unique key's record
                                // was deleted; that end goes again under the key's next
                                // generation, and so does the membership (it stays pending).
                                continue
                            }
                            try db.execute(sql: """
                                DELETE FROM ANIMBUSCLOUDLINK WHERE ZRELATIONSHIP = ? AND ZFIRSTENTITY = ? AND ZFIRSTPK = ? AND ZSECONDENTITY = ? AND ZSECONDPK = ?
                                """, arguments: [key, first.entity, first.primaryKey, second.entity, second.primaryKey])
                        } else if case let .object(key, _) = item {
                            let row = try SyncMetadata.record(named: result.recordName, db)
                            let unique = !(mirror.store.entity(number: key.entity)?.rootEntity.uniquenessConstraints.first ?? []).isEmpty
                            // This object's own first save reached the server (its answer was
                            // lost) and another device deleted the record: deletion wins.
                            let ownRecordDeleted = sentBefore.contains(result.recordName) && ownDevice != nil
                                && error?.serverRecord?.created?.device == ownDevice
                            if unique, row?.changeTag == nil, !ownRecordDeleted {
                                // A new object whose unique key names a deleted record: it takes
                                // the key's next generation and goes again (its edits stay pending).
                                try SyncMetadata.removeRecord(named: result.recordName, db)
                                // Its memberships were named after the old name: they go again.
                                try db.execute(sql: """
                                    UPDATE ANIMBUSCLOUDLINK SET ZPENDING = 1
                                    WHERE (ZFIRSTENTITY = ? AND ZFIRSTPK = ?) OR (ZSECONDENTITY = ? AND ZSECONDPK = ?)
                                    """, arguments: [key.entity, key.primaryKey, key.entity, key.primaryKey])
                                continue
                            }
                            // Its edits lose to the deletion; the importer removes the object.
                            try SyncMetadata.setPendingFields([:], entity: key.entity, primaryKey: key.primaryKey, db)
                            deletedOnServer.append(result.recordName)
                        } else if case .deletion = item {
                            // The server never had the record (its save never arrived): nothing
                            // is left to delete, and the deletion is settled. The name was never
                            // used there, so it is not remembered as deleted either: another
                            // device's object may take it (a unique key made again), and its
                            // records must not be ignored here.
                            try db.execute(sql: "DELETE FROM ANIMBUSCLOUDDELETION WHERE ZRECORDNAME = ?", arguments: [result.recordName])
                            try SyncMetadata.forgetTombstone(named: result.recordName, db)
                            confirmed += 1
                            settled += 1
                        }
                        continue
                    }
                    if case let .object(key, _) = item {
                        try db.execute(sql: "UPDATE ANIMBUSCLOUDPENDING SET ZATTEMPTS = ZATTEMPTS + 1 WHERE ZENTITY = ? AND ZPK = ?",
                                       arguments: [key.entity, key.primaryKey])
                    }
                    let wire = WireError(error?.code ?? .internalError, "record \(result.recordName): \(error?.message ?? "failed")")
                    errors.append(CloudError(wire))
                default:
                    continue
                }
            }
            return (confirmed, settled, deletedOnServer, errors)
        }
    }
}
