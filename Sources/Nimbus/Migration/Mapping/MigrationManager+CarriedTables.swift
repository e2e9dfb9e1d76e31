import Foundation
import GRDB

extension MigrationManager {
    /// Copies the tables of layers above the object graph (sync metadata) from the source into
    /// the new store, with ``MigratedKeys`` saying where each new object came from. Runs after
    /// the new objects are saved (their keys are final); a store without such tables is left
    /// alone.
    func carryTables(from sourceStore: PersistentStore, sourceURL: URL, into destinationStore: PersistentStore) throws {
        let (tables, indexes, previous, unread) = try sourceStore.database.read { db in
            let prefix = MigratedKeys.carriedTablePrefix + "%"
            let tables = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name LIKE ?", arguments: [prefix])
                .map { (name: $0[0] as String, sql: $0[1] as String) }
            let indexes = try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name LIKE ? AND sql IS NOT NULL",
                                              arguments: [prefix])
            let previous = try MigratedKeys.read(db)
            return (tables, indexes, previous, try unreadChanges(sourceStore, db))
        }
        guard !tables.isEmpty else { return }
        let entries = try migratedKeys(previous: previous, unread: unread)
        try destinationStore.database.writer.writeWithoutTransaction { db in
            try db.execute(sql: "ATTACH DATABASE ? AS nimbus_migration_source", arguments: [sourceURL.path])
            defer { try? db.execute(sql: "DETACH DATABASE nimbus_migration_source") }
            try db.inTransaction {
                for table in tables {
                    try db.execute(sql: table.sql)
                    let name = table.name.quotedDatabaseIdentifier
                    try db.execute(sql: "INSERT INTO main.\(name) SELECT * FROM nimbus_migration_source.\(name)")
                }
                for index in indexes { try db.execute(sql: index) }
                try MigratedKeys.write(entries, db)
                return .commit
            }
        }
    }

    /// One row per object of the new store: the source object it was made from (the first
    /// destination of a source keeps its identity; further ones are new), and what changed.
    private func migratedKeys(previous: [MigratedKeys.Entry]?, unread: [ObjectKey: Set<String>]) throws -> [MigratedKeys.Entry] {
        var earlier: [ObjectKey: MigratedKeys.Entry] = [:]
        for entry in previous ?? [] { earlier[ObjectKey(entity: entry.newEntity, primaryKey: entry.newPrimaryKey)] = entry }
        var claimed = Set<ManagedObjectID>()
        var entries: [MigratedKeys.Entry] = []
        for mapping in mappingModel.entityMappings {
            for object in createdObjects(by: mapping) where !object.isDeleted && !object.objectID.isTemporaryID {
                var entry = MigratedKeys.Entry(oldEntity: nil, oldPrimaryKey: nil, newEntity: object.entity.name,
                                               newPrimaryKey: object.objectID.primaryKey, changed: [MigratedKeys.everyProperty])
                if let source = sourceObject(of: object), claimed.insert(source.objectID).inserted {
                    let key = ObjectKey(entity: source.entity.name, primaryKey: source.objectID.primaryKey)
                    var changed = changedProperties(of: object, from: source).union(unread[key] ?? [])
                    if previous != nil {
                        // A second mapping stage: the object is the first source's object.
                        let first = earlier[key]
                        entry.oldEntity = first?.oldEntity
                        entry.oldPrimaryKey = first?.oldPrimaryKey
                        changed.formUnion(first?.changed ?? [MigratedKeys.everyProperty])
                    } else {
                        entry.oldEntity = key.entity
                        entry.oldPrimaryKey = key.primaryKey
                    }
                    entry.changed = changed
                }
                entries.append(entry)
            }
        }
        return entries
    }

    /// The destination object's properties whose values differ from the source object's
    /// property of the same name (or that the source has not).
    private func changedProperties(of object: ManagedObject, from source: ManagedObject) -> Set<String> {
        var changed = Set<String>()
        for property in object.entity.properties {
            switch property {
            case let .attribute(attribute) where !attribute.isTransient:
                guard source.entity.attributesByName[attribute.name] != nil,
                      Self.same(source.value(forKey: attribute.name), object.value(forKey: attribute.name)) else {
                    changed.insert(attribute.name)
                    continue
                }
            case let .relationship(relationship) where !relationship.isTransient:
                guard source.entity.property(named: relationship.name)?.relationship != nil else {
                    changed.insert(relationship.name)
                    continue
                }
                // The same objects, seen from the source: each destination's source object.
                let before = Set(Self.objects(source.value(forKey: relationship.name)).map(\.objectID))
                let after = Self.objects(object.value(forKey: relationship.name)).map { sourceObject(of: $0)?.objectID }
                if after.contains(nil) || Set(after.compactMap { $0 }) != before { changed.insert(relationship.name) }
            default:
                continue
            }
        }
        return changed
    }

    private static func objects(_ value: Any?) -> [ManagedObject] {
        switch value {
        case let one as ManagedObject: [one]
        case let many as Set<ManagedObject>: Array(many)
        case let many as [ManagedObject]: many
        default: []
        }
    }

    private static func same(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (a?, b?): (a as? AnyHashable).flatMap { a in (b as? AnyHashable).map { a == $0 } } ?? false
        default: false
        }
    }

    /// Per source object, the properties changed in history after the oldest registered
    /// consumer's position (every property for an insert): edits a sync layer has not taken yet.
    private func unreadChanges(_ store: PersistentStore, _ db: Database) throws -> [ObjectKey: Set<String>] {
        guard try HistoryStore.isPrepared(db), try db.tableExists("ANIMBUSHISTORYCONSUMER"),
              let oldest = try Int64.fetchOne(db, sql: "SELECT min(ZTRANSACTION) FROM ANIMBUSHISTORYCONSUMER") else { return [:] }
        var changes: [ObjectKey: Set<String>] = [:]
        for transaction in try store.historyTransactions(after: oldest, db) {
            for change in transaction.changes ?? [] {
                let key = ObjectKey(entity: change.changedObjectID.entity.name, primaryKey: change.changedObjectID.primaryKey)
                switch change.changeType {
                case .insert: changes[key, default: []].insert(MigratedKeys.everyProperty)
                case .update: changes[key, default: []].formUnion(change.updatedProperties ?? [])
                case .delete: continue
                }
            }
        }
        return changes
    }

    /// An object's key by entity name, stable across model versions.
    struct ObjectKey: Hashable {
        var entity: String
        var primaryKey: Int64
    }
}
