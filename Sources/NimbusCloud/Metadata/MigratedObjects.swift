import Foundation
import GRDB
import Nimbus
import NimbusWire

/// After a mapping-model migration, the sync metadata (carried into the new file as it was)
/// follows its objects to their new keys, by the ``MigratedKeys`` the migration wrote.
///
/// - An object made from a synced one keeps its record name, ancestor, unsent edits and
///   memberships; the properties the migration changed (or that unread history holds as
///   changed) become unsent edits, so devices that have not upgraded see the new values, and
///   values the migration left as they were are not sent again (they would overwrite edits
///   made elsewhere meanwhile).
/// - An object the mapping added is new to the cloud.
/// - A synced object the migration removed, of an entity the new model still has, is deleted
///   in the cloud; one of an entity the new model dropped is forgotten, as a lightweight
///   migration forgets it (decision 0059).
///
/// Runs when the store loads, before ``MetadataSchema/reconcile(_:_:)``, in its transaction.
struct MigratedObjects {
    let store: PersistentStore
    let model: ManagedObjectModel
    let capture: ChangeCapture

    func apply(_ db: Database) throws {
        guard let entries = try MigratedKeys.read(db) else { return }
        // The numbers the metadata was written with; without them nothing can be matched
        // (a store never synced has no metadata to follow its objects).
        guard let stored = try MetadataSchema.stored(db) else { return try MigratedKeys.drop(db) }
        let model = self.model
        let newNumber: (String) -> Int? = { name in model.entitiesByName[name]?.entityNumber }
        let mirrored = capture.mirrored
        let surviving = Set(mirrored.entities.map(\.name))

        try db.execute(sql: "CREATE TEMP TABLE nimbus_migrated (ZOLDENTITY INTEGER, ZOLDPK INTEGER, ZNEWENTITY INTEGER, ZNEWPK INTEGER, PRIMARY KEY (ZOLDENTITY, ZOLDPK))")
        defer { _ = try? db.execute(sql: "DROP TABLE IF EXISTS temp.nimbus_migrated") }
        for entry in entries {
            guard let name = entry.oldEntity, let old = stored.entities[name], let key = entry.oldPrimaryKey,
                  let new = newNumber(entry.newEntity) else { continue }
            try db.execute(sql: "INSERT OR IGNORE INTO nimbus_migrated VALUES (?, ?, ?, ?)", arguments: [old, key, new, entry.newPrimaryKey])
        }
        let stamp = try nextStamp(db)
        try remapRecords(stored: stored, surviving: surviving, stamp: stamp, db)
        try remapKeyedRows(db)
        try remapDeletions(stored: stored, newNumber: newNumber, db)

        // The metadata's numbers are now the new model's: the schema says so, and what the
        // migration removed is retired.
        var schema = stored
        schema.entities = [:]
        for name in stored.entities.keys {
            if let number = newNumber(name), surviving.contains(name) { schema.entities[name] = number } else { schema.retired.append(name) }
        }
        schema.retired = Array(Set(schema.retired)).sorted()
        try schema.save(db)

        // What the migration changed goes out as edits; what it added, as new objects. The
        // migration's own history transaction is covered so: the cursor passes it.
        if Int64.fromDatabaseValue(try SyncMetadata.state(.historyCursor, db)) != nil {
            for entry in entries {
                guard let entity = model.entitiesByName[entry.newEntity], mirrored.roles[entity.name] != nil else { continue }
                let id = store.objectID(for: entity, primaryKey: entry.newPrimaryKey)
                let known = try SyncMetadata.record(entity: entity.entityNumber, primaryKey: entry.newPrimaryKey, db) != nil
                if entry.changed.contains(MigratedKeys.everyProperty) || !known {
                    try capture.recordInsert(id, stamp: stamp, db)
                } else {
                    try capture.recordUpdate(id, properties: entry.changed, stamp: stamp, db)
                }
            }
            let last = try store.lastHistoryTransaction(db)
            try SyncMetadata.setState(.historyCursor, last, db)
            try store.setHistoryConsumer(ChangeCapture.consumerName, at: last, db)
        }
        // Applied once: dropped in the same transaction (a failure rolls the whole remap back).
        try MigratedKeys.drop(db)
    }

    private func nextStamp(_ db: Database) throws -> HLCStamp {
        var clock = try HybridLogicalClock.load(db)
        let offset = try SyncMetadata.doubleState(.clockOffset, db) ?? 0
        let stamp = HLCStamp(time: clock.tick(at: Date().addingTimeInterval(offset)), device: capture.deviceID)
        try clock.save(db)
        return stamp
    }

    /// Records move to their objects' new keys (through negative numbers, so no key collides
    /// on the way); records no object came from are deleted in the cloud or forgotten.
    private func remapRecords(stored: MetadataSchema, surviving: Set<String>, stamp: HLCStamp, _ db: Database) throws {
        try db.execute(sql: """
            UPDATE ANIMBUSCLOUDRECORD SET
                ZENTITY = -(SELECT m.ZNEWENTITY FROM nimbus_migrated m WHERE m.ZOLDENTITY = ANIMBUSCLOUDRECORD.ZENTITY AND m.ZOLDPK = ANIMBUSCLOUDRECORD.ZPK),
                ZPK = (SELECT m.ZNEWPK FROM nimbus_migrated m WHERE m.ZOLDENTITY = ANIMBUSCLOUDRECORD.ZENTITY AND m.ZOLDPK = ANIMBUSCLOUDRECORD.ZPK)
            WHERE EXISTS (SELECT 1 FROM nimbus_migrated m WHERE m.ZOLDENTITY = ANIMBUSCLOUDRECORD.ZENTITY AND m.ZOLDPK = ANIMBUSCLOUDRECORD.ZPK)
            """)
        let names = Dictionary(stored.entities.map { ($0.value, $0.key) }) { a, _ in a }
        for row in try Row.fetchAll(db, sql: "SELECT ZENTITY, ZRECORDNAME, ZCHANGETAG FROM ANIMBUSCLOUDRECORD WHERE ZENTITY > 0") {
            let recordName: String = row[1]
            if let name = names[row[0]], surviving.contains(name), (row[2] as String?) != nil,
               let number = model.entitiesByName[name]?.entityNumber {
                try db.execute(sql: "INSERT OR REPLACE INTO ANIMBUSCLOUDDELETION (ZRECORDNAME, ZENTITY, ZTIME, ZDEVICE) VALUES (?, ?, ?, ?)",
                               arguments: [recordName, number, stamp.time, stamp.device])
            }
            try SyncMetadata.removeRecord(named: recordName, db)
        }
        try db.execute(sql: "UPDATE ANIMBUSCLOUDRECORD SET ZENTITY = -ZENTITY WHERE ZENTITY < 0")
    }

    /// Unsent edits and memberships follow their objects; those of removed objects go.
    private func remapKeyedRows(_ db: Database) throws {
        func mapped(_ entity: String, _ key: String, _ column: String) -> String {
            "(SELECT m.\(column) FROM nimbus_migrated m WHERE m.ZOLDENTITY = \(entity) AND m.ZOLDPK = \(key))"
        }
        try db.execute(sql: """
            DELETE FROM ANIMBUSCLOUDPENDING WHERE \(mapped("ZENTITY", "ZPK", "ZNEWPK")) IS NULL;
            UPDATE ANIMBUSCLOUDPENDING SET ZENTITY = -\(mapped("ZENTITY", "ZPK", "ZNEWENTITY")), ZPK = \(mapped("ZENTITY", "ZPK", "ZNEWPK"));
            UPDATE ANIMBUSCLOUDPENDING SET ZENTITY = -ZENTITY;
            DELETE FROM ANIMBUSCLOUDLINK WHERE \(mapped("ZFIRSTENTITY", "ZFIRSTPK", "ZNEWPK")) IS NULL
                OR \(mapped("ZSECONDENTITY", "ZSECONDPK", "ZNEWPK")) IS NULL;
            UPDATE ANIMBUSCLOUDLINK SET
                ZFIRSTENTITY = -\(mapped("ZFIRSTENTITY", "ZFIRSTPK", "ZNEWENTITY")), ZFIRSTPK = \(mapped("ZFIRSTENTITY", "ZFIRSTPK", "ZNEWPK")),
                ZSECONDENTITY = -\(mapped("ZSECONDENTITY", "ZSECONDPK", "ZNEWENTITY")), ZSECONDPK = \(mapped("ZSECONDENTITY", "ZSECONDPK", "ZNEWPK"));
            UPDATE ANIMBUSCLOUDLINK SET ZFIRSTENTITY = -ZFIRSTENTITY, ZSECONDENTITY = -ZSECONDENTITY;
            """)
    }

    /// Unsent deletions keep their record names; their entity numbers follow the names.
    private func remapDeletions(stored: MetadataSchema, newNumber: (String) -> Int?, _ db: Database) throws {
        let cases = stored.entities.map { "WHEN \($0.value) THEN \(-(newNumber($0.key) ?? 0))" }.joined(separator: " ")
        guard !cases.isEmpty else { return }
        try db.execute(sql: """
            UPDATE ANIMBUSCLOUDDELETION SET ZENTITY = CASE ZENTITY \(cases) ELSE 0 END WHERE ZENTITY > 0;
            UPDATE ANIMBUSCLOUDDELETION SET ZENTITY = -ZENTITY WHERE ZENTITY < 0;
            """)
    }
}
