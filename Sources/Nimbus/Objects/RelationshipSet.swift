import Foundation

/// A live, changeable view of a to-many relationship, as Core Data's
/// `mutableSetValue(forKey:)` gives: adding and removing through it keeps inverses
/// consistent and tells observers.
///
/// ```swift
/// let tags = post.mutableSetValue(forKey: "tags")
/// tags.add(swiftTag)
/// tags.remove(oldTag)
/// ```
public final class RelationshipSet: Sequence {
    private let object: ManagedObject
    private let key: String

    init(object: ManagedObject, key: String) {
        self.object = object
        self.key = key
    }

    /// The related objects now (in order, for an ordered relationship).
    public var allObjects: [ManagedObject] {
        switch object.value(forKey: key) {
        case let set as Set<ManagedObject>: Array(set)
        case let array as [ManagedObject]: array
        default: []
        }
    }

    /// How many objects are related.
    public var count: Int { allObjects.count }

    /// Whether an object is related.
    public func contains(_ member: ManagedObject) -> Bool {
        (try? object.objectIDs(forRelationshipNamed: key).contains(member.objectID)) ?? false
    }

    /// Relates an object (nothing happens when it already is).
    public func add(_ member: ManagedObject) { change { try object.addObjects([member], toRelationship: key) } }

    /// Relates several objects.
    public func add(contentsOf members: [ManagedObject]) { change { try object.addObjects(members, toRelationship: key) } }

    /// Unrelates an object.
    public func remove(_ member: ManagedObject) { change { try object.removeObjects([member], fromRelationship: key) } }

    /// Unrelates every object.
    public func removeAll() { change { try object.removeObjects(allObjects, fromRelationship: key) } }

    public func makeIterator() -> IndexingIterator<[ManagedObject]> { allObjects.makeIterator() }

    private func change(_ body: () throws -> Void) {
        object.willChangeValue(forKey: key)
        do { try body() } catch {
            #if DEBUG
            preconditionFailure("mutableSetValue(forKey: \"\(key)\") of \(object.objectID): \(error)")
            #endif
        }
        object.didChangeValue(forKey: key)
    }
}

extension ManagedObject {
    /// A changeable view of a to-many relationship.
    ///
    /// In debug builds an unknown key, or one that is not a to-many relationship, stops
    /// the process (Core Data raises); release builds give a view whose changes do nothing.
    public func mutableSetValue(forKey key: String) -> RelationshipSet {
        checkQueue()
        #if DEBUG
        let index = entity.index(ofProperty: key)
        precondition(index.map { entity.properties[$0].relationship?.isToMany == true } ?? false,
                     "mutableSetValue(forKey:): \(entity.name) has no to-many relationship \"\(key)\"")
        #endif
        return RelationshipSet(object: self, key: key)
    }
}
