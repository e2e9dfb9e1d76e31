import Foundation
import Nimbus

/// Moves what was saved without an account into an account's store, in two steps around the
/// store swap, so that no context ever sees the data twice or not at all:
///
/// 1. ``copy()`` (before the swap, while the local store is still the one in use): copies every
///    object of the local store into the account's store in one save (attributes, then
///    relationships through the copies); objects of entities with a uniqueness constraint
///    join the account's object with the same key instead. The same save marks each handled
///    original in `ANIMBUSCLOUDMOVED`, so a copy interrupted by a crash never copies twice.
/// 2. ``removeOriginals(marked:)`` (after the swap, the local store no longer in use): deletes
///    the marked originals from the local store, so they move once.
struct LocalDataMover {
    let context: ManagedObjectContext
    let from: PersistentStore
    let to: PersistentStore

    /// Copies the local objects not yet handled into the account's store.
    func copy() throws {
        var copies: [ManagedObjectID: ManagedObject] = [:]
        var originals: [ManagedObject] = []
        let handled = try Self.marks(in: to, of: from.identifier)
        var marks: [Int64] = []
        var twins = try accountObjectsByKey()
        for entity in from.entities where !entity.isAbstract {
            let request = FetchRequest<ManagedObject>(entityName: entity.name)
            for object in try context.fetch(request) where object.entity === entity && object.objectID.storeIdentifier == from.identifier {
                if handled.contains(Self.key(object.objectID)) { continue }
                originals.append(object)
                marks.append(Self.key(object.objectID))
                if let key = Self.uniqueKey(of: object), let twin = twins[key] {
                    copies[object.objectID] = twin
                    continue
                }
                let copy = try context.insertNewObject(forEntityName: entity.name)
                context.assign(copy, to: to)
                for property in entity.properties {
                    guard let attribute = property.attribute, !attribute.isTransient else { continue }
                    copy.setValue(object.primitiveValue(forKey: attribute.name) ?? .null, forKey: attribute.name)
                }
                copies[object.objectID] = copy
                if let key = Self.uniqueKey(of: copy) { twins[key] = copy }
            }
        }
        guard !originals.isEmpty else { return }
        for object in originals {
            guard let copy = copies[object.objectID], copy.objectID.isTemporaryID else { continue }
            for property in object.entity.properties {
                guard let relationship = property.relationship, !relationship.isTransient else { continue }
                if relationship.isToMany {
                    let members = (object.value(forKey: relationship.name) as? Set<ManagedObject> ?? []).compactMap { copies[$0.objectID] }
                    if !members.isEmpty { try copy.addObjects(members, toRelationship: relationship.name) }
                } else if let destination = object.value(forKey: relationship.name) as? ManagedObject, let mapped = copies[destination.objectID] {
                    copy.setValue(mapped, forKey: relationship.name)
                }
            }
        }
        // The copies and the marks of every handled original commit together.
        let store = from.identifier
        let handledNow = marks
        try context.save(in: to) { db, _ in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS ANIMBUSCLOUDMOVED (ZSTORE TEXT NOT NULL, ZKEY INTEGER NOT NULL, PRIMARY KEY (ZSTORE, ZKEY))")
            for key in handledNow {
                try db.execute(sql: "INSERT OR IGNORE INTO ANIMBUSCLOUDMOVED (ZSTORE, ZKEY) VALUES (?, ?)", arguments: [store, key])
            }
        }
    }

    /// Deletes from the local store the originals `marks` names (read from the account's
    /// store with ``marks(in:of:)``).
    func removeOriginals(marked marks: Set<Int64>) throws {
        guard !marks.isEmpty else { return }
        var deleted = false
        for entity in from.entities where !entity.isAbstract {
            let request = FetchRequest<ManagedObject>(entityName: entity.name)
            for object in try context.fetch(request)
            where object.entity === entity && object.objectID.storeIdentifier == from.identifier && marks.contains(Self.key(object.objectID)) {
                context.delete(object)
                deleted = true
            }
        }
        if deleted { try context.save() }
    }

    /// The keys of the originals of the local store `storeIdentifier` already handled by a
    /// copy into `accountStore`.
    static func marks(in accountStore: PersistentStore, of storeIdentifier: String) throws -> Set<Int64> {
        try accountStore.readTransaction { db -> Set<Int64> in
            guard try db.tableExists("ANIMBUSCLOUDMOVED") else { return [] }
            return Set(try Int64.fetchAll(db, sql: "SELECT ZKEY FROM ANIMBUSCLOUDMOVED WHERE ZSTORE = ?", arguments: [storeIdentifier]))
        }
    }

    /// An object's key in the local store: entity number in the high bits, primary key below.
    static func key(_ id: ManagedObjectID) -> Int64 {
        Int64(id.entity.entityNumber) << 40 | id.primaryKey
    }

    /// The account store's objects of entities with a uniqueness constraint, by unique key,
    /// read once (a fetch per object would test every pending copy each time).
    private func accountObjectsByKey() throws -> [String: ManagedObject] {
        var result: [String: ManagedObject] = [:]
        var roots = Set<String>()
        for entity in to.entities where !(entity.rootEntity.uniquenessConstraints.first ?? []).isEmpty {
            guard roots.insert(entity.rootEntity.name).inserted else { continue }
            for object in try context.fetch(FetchRequest<ManagedObject>(entityName: entity.rootEntity.name))
            where object.objectID.storeIdentifier == to.identifier {
                if let key = Self.uniqueKey(of: object) { result[key] = object }
            }
        }
        return result
    }

    /// The entity hierarchy and the values of its first uniqueness constraint, as text.
    static func uniqueKey(of object: ManagedObject) -> String? {
        guard let constraint = object.entity.rootEntity.uniquenessConstraints.first, !constraint.isEmpty else { return nil }
        let values = constraint.map { String(describing: object.primitiveValue(forKey: $0) ?? .null) }
        return ([object.entity.rootEntity.name] + values).joined(separator: "\u{1F}")
    }
}
