import Foundation
import Nimbus

/// Copies every object of one store into another in one save (attributes, then
/// relationships through the copies) and deletes the originals in the same save.
struct LocalDataMover {
    let context: ManagedObjectContext
    let from: PersistentStore
    let to: PersistentStore

    func move() throws {
        var copies: [ManagedObjectID: ManagedObject] = [:]
        var originals: [ManagedObject] = []
        // Objects a move interrupted by a crash already copied (the account store records
        // each copy in the transaction that writes it): they are only deleted here now.
        let moved = try to.readTransaction { db -> Set<Int64> in
            guard try db.tableExists("ANIMBUSCLOUDMOVED") else { return [] }
            return Set(try Int64.fetchAll(db, sql: "SELECT ZKEY FROM ANIMBUSCLOUDMOVED WHERE ZSTORE = ?", arguments: [from.identifier]))
        }
        var movedNow: [(Int64, ManagedObjectID)] = []
        var twins = try accountObjectsByKey()
        for entity in from.entities where !entity.isAbstract {
            let request = FetchRequest<ManagedObject>(entityName: entity.name)
            for object in try context.fetch(request) where object.entity === entity && object.objectID.storeIdentifier == from.identifier {
                originals.append(object)
                if moved.contains(Self.key(object.objectID)) { continue }
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
                movedNow.append((Self.key(object.objectID), copy.objectID))
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
        // The copies and their marks commit together; then the originals go.
        let store = from.identifier
        let marks = movedNow.map(\.0)
        try context.save(in: to) { db, _ in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS ANIMBUSCLOUDMOVED (ZSTORE TEXT NOT NULL, ZKEY INTEGER NOT NULL, PRIMARY KEY (ZSTORE, ZKEY))")
            for key in marks {
                try db.execute(sql: "INSERT OR IGNORE INTO ANIMBUSCLOUDMOVED (ZSTORE, ZKEY) VALUES (?, ?)", arguments: [store, key])
            }
        }
        for object in originals { context.delete(object) }
        try context.save()
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
