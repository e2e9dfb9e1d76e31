import Foundation
import GRDB
import struct NimbusWire.Record
import Nimbus
import NimbusWire

/// What one export round sends: records with the assets they refer to, deletions, and what
/// each item stands for locally (so that the server's answer can be recorded).
struct ExportPlan {
    enum Item {
        case object(ObjectKey, sent: [String: HLCStamp])
        case link(key: String, first: ObjectKey, second: ObjectKey, stamp: HLCStamp)
        case deletion
    }

    var saves: [Record] = []
    var deletions: [RecordDeletion] = []
    var assets: [String: Data] = [:]
    var items: [String: Item] = [:]

    var isEmpty: Bool { saves.isEmpty && deletions.isEmpty }
    var count: Int { saves.count + deletions.count }

    /// The plan split into requests within the server's limits (items and bytes), saves in
    /// order (parents first) before deletions (children first).
    func batches(maximumItems: Int, maximumBytes: Int) -> [ModifyRecordsRequest] {
        var batches: [ModifyRecordsRequest] = []
        var current = ModifyRecordsRequest(savePolicy: .changedKeys)
        var bytes = 0
        func flush() {
            if !current.saves.isEmpty || !current.deletions.isEmpty { batches.append(current) }
            current = ModifyRecordsRequest(savePolicy: .changedKeys)
            bytes = 0
        }
        for record in saves {
            let size = (try? WireJSONWriter.encode(record).count) ?? 0
            if current.saves.count + current.deletions.count >= maximumItems || (bytes + size > maximumBytes && bytes > 0) { flush() }
            current.saves.append(record)
            bytes += size
        }
        for deletion in deletions {
            if current.saves.count + current.deletions.count >= maximumItems { flush() }
            current.deletions.append(deletion)
            bytes += 128
        }
        flush()
        return batches
    }
}

/// What is pending in the outbox, read in one transaction.
struct PendingWork {
    struct Object {
        var id: ManagedObjectID
        var fields: [String: HLCStamp]
        var recordName: String?
        /// The change tag the server last confirmed (nil before the first confirmation): sent
        /// along, so that a save against a record whose tombstone was purged is refused.
        var changeTag: String? = nil
    }
    struct Link {
        var key: String
        var first: ManagedObjectID
        var second: ManagedObjectID
        var linked: Bool
        var stamp: HLCStamp
    }

    var objects: [Object] = []
    var deletions: [(name: String, entity: Int, stamp: HLCStamp)] = []
    var links: [Link] = []

    var isEmpty: Bool { objects.isEmpty && deletions.isEmpty && links.isEmpty }

    /// Reads up to `limit` pending items of one zone: objects parents first (by `depth`),
    /// deletions children first, then memberships. `lane` is `nil` when the store has no zone
    /// besides its default one (nothing to filter).
    static func read(store: PersistentStore, limit: Int, depth: [Int: Int], lane: ZoneLane? = nil, _ db: Database) throws -> PendingWork {
        var work = PendingWork()
        let objectFilter = lane.map { "WHERE " + $0.holdsSQL(entity: "p.ZENTITY", primaryKey: "p.ZPK") } ?? ""
        let rows = try Row.fetchAll(db, sql: """
            SELECT p.ZENTITY, p.ZPK, p.ZFIELDS, r.ZRECORDNAME, r.ZCHANGETAG FROM ANIMBUSCLOUDPENDING p
            LEFT JOIN ANIMBUSCLOUDRECORD r ON r.ZENTITY = p.ZENTITY AND r.ZPK = p.ZPK
            \(objectFilter)
            ORDER BY p.ZATTEMPTS, p.rowid LIMIT ?
            """, arguments: [limit])
        for row in rows {
            guard let entity = store.entity(number: row[0]) else { continue }
            let fields = try WireCoding.stamps(from: row[2] as Data)
            work.objects.append(Object(id: store.objectID(for: entity, primaryKey: row[1]), fields: fields, recordName: row[3], changeTag: row[4]))
        }
        work.objects.sort { depth[$0.id.entity.entityNumber, default: 0] < depth[$1.id.entity.entityNumber, default: 0] }
        let left = max(0, limit - work.objects.count)
        let deletionFilter = lane.map { $0.key == nil ? "WHERE ZZONE IS NULL" : "WHERE ZZONE = ?" } ?? ""
        let deletionArguments: StatementArguments = lane?.key.map { [$0, left] } ?? [left]
        for row in try Row.fetchAll(db, sql: "SELECT ZRECORDNAME, ZENTITY, ZTIME, ZDEVICE FROM ANIMBUSCLOUDDELETION \(deletionFilter) LIMIT ?",
                                    arguments: deletionArguments) {
            work.deletions.append((row[0], row[1], HLCStamp(time: row[2], device: row[3])))
        }
        work.deletions.sort { depth[$0.entity, default: 0] > depth[$1.entity, default: 0] }
        let linkLimit = max(0, left - work.deletions.count)
        for row in try Row.fetchAll(db, sql: """
            SELECT ZRELATIONSHIP, ZFIRSTENTITY, ZFIRSTPK, ZSECONDENTITY, ZSECONDPK, ZLINKED, ZTIME, ZDEVICE
            FROM ANIMBUSCLOUDLINK WHERE ZPENDING = 1
            \(lane.map { "AND " + $0.holdsSQL(entity: "ZFIRSTENTITY", primaryKey: "ZFIRSTPK") + " AND " + $0.holdsSQL(entity: "ZSECONDENTITY", primaryKey: "ZSECONDPK") } ?? "")
            LIMIT ?
            """, arguments: [linkLimit]) {
            guard let firstEntity = store.entity(number: row[1]), let secondEntity = store.entity(number: row[3]) else { continue }
            work.links.append(Link(key: row[0], first: store.objectID(for: firstEntity, primaryKey: row[2]),
                                   second: store.objectID(for: secondEntity, primaryKey: row[4]), linked: row[5],
                                   stamp: HLCStamp(time: row[6], device: row[7])))
        }
        return work
    }
}
