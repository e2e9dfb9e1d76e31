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
        for entity in from.entities where !entity.isAbstract {
            let request = FetchRequest<ManagedObject>(entityName: entity.name)
            for object in try context.fetch(request) where object.entity === entity && object.objectID.storeIdentifier == from.identifier {
                originals.append(object)
                if let twin = try twin(of: object) {
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
        for object in originals { context.delete(object) }
        try context.save()
    }

    /// The object of the account's store with the same unique key, if the entity has one.
    private func twin(of object: ManagedObject) throws -> ManagedObject? {
        guard let constraint = object.entity.rootEntity.uniquenessConstraints.first, !constraint.isEmpty else { return nil }
        var arguments: [Any?] = []
        for key in constraint {
            guard let attribute = object.entity.attributesByName[key] else { return nil }
            arguments += [key, (object.primitiveValue(forKey: key) ?? .null).anyValue(for: attribute.type)]
        }
        var request = FetchRequest<ManagedObject>(entityName: object.entity.rootEntity.name)
        request.predicate = try QueryPredicate(format: Array(repeating: "%K == %@", count: constraint.count).joined(separator: " AND "),
                                               argumentArray: arguments)
        return try context.fetch(request).first { $0.objectID.storeIdentifier == to.identifier }
    }
}
