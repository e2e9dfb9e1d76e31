import Foundation
import Nimbus

/// A relationship's value on the command line, resolved in the store it edits (so a script
/// never needs an object URI, which differs per device):
///
/// - object URIs, comma-separated: `tags=x-coredata://…/Tag/p1,x-coredata://…/Tag/p2`;
/// - one entity and key: `author=Person[email=ada@example.com]` (the value parsed by the
///   key's type; every object with that value);
/// - a predicate on the destination entity: `tags+=name IN {'swift', 'linux'}`;
/// - nothing: `author=` clears a to-one, `tags=` empties a to-many.
///
/// A value that names no object is an error; so is more than one object for a to-one.
/// `key+=…` adds members to a to-many relationship, `key-=…` removes them.
enum RelationshipValue {
    /// The objects `text` names, for `relationship` of an object of `entity`.
    static func objects(_ text: String, for relationship: RelationshipDescription, of entity: EntityDescription,
                        session: StoreSession) throws -> [ManagedObject] {
        let name = "\(entity.name).\(relationship.name)"
        let text = text.trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return [] }
        guard let destination = entity.destination(of: relationship) else {
            throw CLIError("\(name): its destination entity \(relationship.destinationEntityName) is not in the model")
        }
        if text.hasPrefix("x-coredata:") {
            return try text.split(separator: ",").map { part in
                let uri = part.trimmingCharacters(in: .whitespaces)
                guard let url = URL(string: uri), let id = session.coordinator.managedObjectID(forURIRepresentation: url) else {
                    throw CLIError("\(name): '\(uri)' is not an object URI of this store")
                }
                do { return try session.context.existingObject(with: id) } catch {
                    throw CLIError("\(name): no object of this store has the URI \(uri)", underlying: error)
                }
            }
        }
        var request: FetchRequest<ManagedObject>
        let described: String
        if let parts = keyed(text), let target = try? session.model.entity(named: parts.entity) {
            let (key, value) = (parts.key, parts.value)
            guard target.isKind(of: destination) else {
                throw CLIError("\(name) holds \(destination.name) objects, not \(target.name)")
            }
            guard let attribute = target.attributesByName[key] else {
                let known = target.attributesByName.keys.sorted().joined(separator: ", ")
                throw CLIError("\(name): \(target.name) has no attribute '\(key)' (attributes: \(known))")
            }
            let parsed = try ValueParsing.value(value, for: attribute, entity: target.name)
            request = FetchRequest<ManagedObject>(entityName: target.name)
            request.predicate = try QueryPredicate(format: "%K == %@", argumentArray: [key, parsed])
            described = "no \(target.name) has \(key) = '\(value)'"
        } else {
            request = FetchRequest<ManagedObject>(entityName: destination.name)
            do { request.predicate = try session.predicate(text) } catch {
                throw CLIError("\(name): '\(text)' is not an object URI, \(destination.name)[key=value] or a predicate on \(destination.name)",
                               underlying: error)
            }
            described = "no \(destination.name) matches \(text)"
        }
        let objects = try session.context.fetch(request).sorted { $0.objectID < $1.objectID }
        guard !objects.isEmpty else { throw CLIError("\(name): \(described) in this store") }
        return objects
    }

    /// Sets, adds or removes `objects` in `relationship` of `object`.
    static func apply(_ operation: ValueParsing.Assignment.Operation, _ objects: [ManagedObject], to object: ManagedObject,
                      relationship: RelationshipDescription) throws {
        let name = "\(object.entity.name).\(relationship.name)"
        guard relationship.isToMany else {
            guard operation == .set else {
                throw CLIError("\(name) is to-one: set it with \(relationship.name)=… (+= and -= add and remove members of a to-many relationship)")
            }
            guard objects.count <= 1 else { throw CLIError("\(name) is to-one, but the value names \(objects.count) objects") }
            try object.setValidatedValue(objects.first, forKey: relationship.name)
            return
        }
        let current = object.value(forKey: relationship.name)
        var members: [ManagedObject]
        if let ordered = current as? [ManagedObject] { members = ordered } else if let set = current as? Set<ManagedObject> {
            members = set.sorted { $0.objectID < $1.objectID }
        } else { members = [] }
        switch operation {
        case .set: members = []; fallthrough
        case .add: for added in objects where !members.contains(where: { $0 === added }) { members.append(added) }
        case .remove: members.removeAll { member in objects.contains { $0 === member } }
        }
        try object.setValidatedValue(relationship.isOrdered ? members as Any : Set(members) as Any, forKey: relationship.name)
    }

    /// `Entity[key=value]` as its three parts.
    private static func keyed(_ text: String) -> (entity: String, key: String, value: String)? {
        guard text.hasSuffix("]"), let open = text.firstIndex(of: "["), let equals = text[open...].firstIndex(of: "=") else { return nil }
        let entity = String(text[..<open]), key = String(text[text.index(after: open)..<equals])
        let isName = { (s: String) in !s.isEmpty && s.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } && !(s.first!.isNumber) }
        guard isName(entity), isName(key) else { return nil }
        return (entity, key, String(text[text.index(after: equals)..<text.index(before: text.endIndex)]))
    }
}
