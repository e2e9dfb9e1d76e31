import Foundation

extension ManagedObjectContext {
    /// Inserts a new object; it is saved with the next ``save()``.
    public func insert(_ object: ManagedObject) {
        checkQueue()
        if object.managedObjectContext === self, object.flags.isInserted { return }
        if object.flags.isDeleted, object.managedObjectContext === self {
            // Re-inserting a deleted object un-deletes it.
            recordTouch(object)
            object.flags.isDeleted = false
            deletedSet.remove(object)
            if object.objectID.isTemporaryID { object.flags.isInserted = true; insertedSet.insert(object) }
            return
        }
        object.managedObjectContext = self
        object.flags.isInserted = true
        insertionCounter &+= 1
        object.insertionSequence = insertionCounter
        insertedSet.insert(object)
        insertionOrder.append((object, insertionCounter))
        register(object)
        object.awakeFromInsert()
    }

    /// Creates and inserts a new object of an entity, by name.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unknownEntity``.
    @discardableResult
    public func insertNewObject(forEntityName name: String) throws -> ManagedObject {
        checkQueue()
        let entity = try entity(named: name)
        if entity.isAbstract {
            throw NimbusError(.invalidArgument, "entity \(name) is abstract; insert one of its sub-entities")
        }
        return entity.managedObjectClass.init(entity: entity, insertInto: self)
    }

    /// Marks an object deleted; its delete rules apply when changes are processed (at save).
    public func delete(_ object: ManagedObject) {
        checkQueue()
        guard object.managedObjectContext === self, !object.flags.isDeleted else { return }
        recordTouch(object)
        if object.flags.isInserted {
            // A new object that is deleted simply disappears, after nullifying its relationships.
            object.flags.isDeleted = true
            deletedSet.insert(object)
            return
        }
        object.flags.isDeleted = true
        deletedSet.insert(object)
    }

    /// The object for an ID: the registered one, or a fault the context registers.
    ///
    /// The object's row is not read until a property is accessed.
    public func object(with requestedID: ManagedObjectID) -> ManagedObject {
        checkQueue()
        let objectID = permanentIDsForTemporary.isEmpty ? requestedID : permanentIDsForTemporary[requestedID] ?? requestedID
        return registry.object(for: objectID) {
            objectID.entity.managedObjectClass.init(materializing: .init(id: objectID, context: reference, snapshot: nil, asFault: true))
        }.object
    }

    /// The object for an ID, loaded; throws when its row does not exist.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/objectNotFound``.
    public func existingObject(with objectID: ManagedObjectID) throws -> ManagedObject {
        checkQueue()
        let object = object(with: objectID)
        if objectID.isTemporaryID && parent == nil {
            guard object.flags.isInserted else {
                throw NimbusError(.objectNotFound, "no object with temporary ID \(objectID) in this context")
            }
            return object
        }
        if object.values == nil {
            guard let snapshot = try rowSnapshot(for: object.objectID) else {
                unregister(object)
                throw NimbusError(.objectNotFound, "no row for \(objectID): it was deleted or never saved")
            }
            object.fulfill(with: snapshot)
        }
        return object
    }

    /// Whether the context has unsaved inserts, updates or deletes.
    public var hasChanges: Bool {
        checkQueue()
        return !insertedSet.isEmpty || !deletedSet.isEmpty || changedSet.contains { $0.hasChanges }
    }

    /// Objects inserted since the last save.
    public var insertedObjects: Set<ManagedObject> { checkQueue(); return insertedSet.filter { !$0.flags.isDeleted } }
    /// Objects with changed properties since the last save.
    public var updatedObjects: Set<ManagedObject> { checkQueue(); return changedSet.filter { $0.isUpdated } }
    /// Objects deleted since the last save.
    public var deletedObjects: Set<ManagedObject> { checkQueue(); return deletedSet.filter { !$0.flags.isInserted } }

    func markChanged(_ object: ManagedObject) {
        // New objects are tracked as inserted already.
        if !object.flags.isChanged && !object.flags.isInserted {
            object.flags.isChanged = true
            changedSet.insert(object)
        }
    }

    /// Makes the IDs of newly inserted objects permanent, reserving their rows' keys.
    ///
    /// - Throws: when no store can hold an object.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        checkQueue()
        let temporary = objects.filter { $0.objectID.isTemporaryID }
        guard !temporary.isEmpty else { return }
        let ids = try persistentStoreCoordinator.obtainPermanentIDs(for: temporary.map(\.objectID))
        let map = Dictionary(uniqueKeysWithValues: zip(temporary.map(\.objectID), ids))
        adoptPermanentIDs(Array(zip(temporary, ids)), map: parent != nil || !children.isEmpty ? map : [:])
        remapReferences(map)
    }

    /// Gives new objects their permanent IDs (the registry follows); `map` (temporary to
    /// permanent) is remembered for nested contexts, which may still use temporary IDs.
    func adoptPermanentIDs(_ newIDs: [(ManagedObject, ManagedObjectID)], map: [ManagedObjectID: ManagedObjectID]) {
        if !map.isEmpty { permanentIDsForTemporary.merge(map) { $1 } }
        registry.changeIDs(newIDs)
    }

    /// Replaces temporary IDs in relationship values (all registered objects', or the candidates').
    func remapReferences(_ map: [ManagedObjectID: ManagedObjectID], among candidates: [ManagedObject]? = nil) {
        guard !map.isEmpty else { return }
        for object in candidates ?? registry.all where object.entity.hasRelationships {
            guard var values = object.values else { continue }
            var changed = false
            for index in object.entity.toOneIndexes {
                if case let .object(id) = values[index], let new = map[id] { values[index] = .object(new); changed = true }
            }
            for index in object.entity.toManyIndexes {
                if case let .objects(ids) = values[index], ids.contains(where: { map[$0] != nil }) {
                    values[index] = .objects(ids.map { map[$0] ?? $0 }); changed = true
                }
            }
            if changed { object.values = values }
            for (index, ids) in object.committedToMany where ids.contains(where: { map[$0] != nil }) {
                object.committedToMany[index] = ids.map { map[$0] ?? $0 }
            }
        }
    }
}
