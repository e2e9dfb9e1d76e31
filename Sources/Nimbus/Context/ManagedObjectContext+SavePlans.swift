import Foundation

extension ManagedObjectContext {
    /// Sorts a save's changes into one request per store: new objects go to the store
    /// assigned to them or their entity's default store, others to the store they came from.
    /// Rows of new objects keep the order the objects were inserted in.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/readOnlyStore``, or when no store holds an entity.
    func savePlans(inserted: [ManagedObject], updated: Set<ManagedObject>, deleted: Set<ManagedObject>) throws -> [StoreSavePlan] {
        var plans: [StoreSavePlan] = []
        var planIndexes: [ObjectIdentifier: Int] = [:]  // by store
        var defaultStores: [ObjectIdentifier: PersistentStore] = [:]  // by entity
        var storesByIdentifier: [String: PersistentStore] = [:]
        let schema = managedObjectModel.schema
        // With several stores, a new object goes where the saved objects it refers to are
        // (an item added to a list of the shared store joins that store), and a reference
        // between objects of two stores is refused, as Core Data refuses it.
        let severalStores = persistentStoreCoordinator.persistentStores.count > 1
        func store(for object: ManagedObject) throws -> PersistentStore {
            if object.objectID.isTemporaryID {
                if !assignedStores.isEmpty, let assigned = assignedStores[object.objectID].flatMap({ persistentStoreCoordinator.persistentStore(identifier: $0) }) {
                    return assigned
                }
                if severalStores, let related = try relatedStore(of: object) { return related }
                if let known = defaultStores[ObjectIdentifier(object.entity)] { return known }
                let store = try persistentStoreCoordinator.defaultStore(for: object.entity)
                defaultStores[ObjectIdentifier(object.entity)] = store
                return store
            }
            if let known = storesByIdentifier[object.objectID.storeIdentifier] { return known }
            let store = try persistentStoreCoordinator.store(for: object.objectID)
            storesByIdentifier[object.objectID.storeIdentifier] = store
            return store
        }
        func planIndex(for object: ManagedObject) throws -> Int {
            let store = try store(for: object)
            if severalStores { try checkReferences(of: object, in: store, storeOf: store(for:)) }
            guard store.holds(object.entity) else {
                throw NimbusError(.invalidArgument, "cannot save \(object.objectID): the store \(store.url?.lastPathComponent ?? store.identifier) "
                    + "(configuration \(store.configurationName ?? "Default")) does not hold entity \(object.entity.name); "
                    + "assign the object to a store whose configuration lists it")
            }
            if let index = planIndexes[ObjectIdentifier(store)] { return index }
            guard !store.isReadOnly else {
                throw NimbusError(.readOnlyStore, "cannot save \(object.objectID): the store \(store.url?.path ?? store.identifier) is read-only")
            }
            var request = SaveRequest()
            request.author = transactionAuthor
            request.contextName = name
            plans.append(StoreSavePlan(store: store, request: request))
            planIndexes[ObjectIdentifier(store)] = plans.count - 1
            return plans.count - 1
        }
        // New objects of one entity usually go to one store: remember the last answer.
        var last: (entity: EntityDescription, index: Int)?
        for object in inserted {
            let index: Int
            if let last, last.entity === object.entity, assignedStores.isEmpty, object.objectID.isTemporaryID, !severalStores {
                index = last.index
            } else {
                index = try planIndex(for: object)
                last = object.objectID.isTemporaryID ? (object.entity, index) : nil
            }
            plans[index].insertedObjects.append(object)
            plans[index].request.inserts.append(.init(id: object.objectID, values: object.values!))
            collectRelationshipChanges(of: object, schema: schema, into: &plans[index].request)
        }
        for object in updated.sorted(by: { $0.objectID < $1.objectID }) {
            let index = try planIndex(for: object)
            let changes = object.changedPropertyIndexes()
                .filter { object.entity.properties[$0].relationship?.isToMany != true }
                .map { (index: $0, value: object.values![$0]) }
            plans[index].request.updates.append(.init(id: object.objectID, expectedVersion: object.committed?.version ?? 1, changes: changes,
                                                      changedProperties: object.changedPropertyIndexes()))
            collectRelationshipChanges(of: object, schema: schema, into: &plans[index].request)
        }
        for object in deleted.sorted(by: { $0.objectID < $1.objectID }) {
            let index = try planIndex(for: object)
            plans[index].request.deletes.append(.init(id: object.objectID, tombstone: object.tombstone()))
        }
        return plans
    }

    /// The store of the saved objects a new object refers to through to-one relationships,
    /// when that store holds the object's entity (`nil`: the entity's default store).
    private func relatedStore(of object: ManagedObject) throws -> PersistentStore? {
        guard let values = object.values else { return nil }
        for index in object.entity.toOneIndexes {
            guard case let .object(id) = values[index], !id.isTemporaryID,
                  let store = persistentStoreCoordinator.persistentStore(identifier: id.storeIdentifier), store.holds(object.entity) else { continue }
            return store
        }
        return nil
    }

    /// Refuses to-one references from `object` (saved in `store`) to objects of another store.
    private func checkReferences(of object: ManagedObject, in store: PersistentStore,
                                 storeOf: (ManagedObject) throws -> PersistentStore) throws {
        guard let values = object.values else { return }
        for index in object.entity.toOneIndexes {
            guard case let .object(id) = values[index] else { continue }
            let other: PersistentStore?
            if id.isTemporaryID {
                other = try registeredObject(for: id).map(storeOf)
            } else {
                other = persistentStoreCoordinator.persistentStore(identifier: id.storeIdentifier)
            }
            guard let other, other !== store else { continue }
            throw NimbusError(.invalidArgument, "illegal attempt to relate \(object.objectID) through '\(object.entity.properties[index].name)' "
                + "to \(id), an object of another store (\(other.url?.lastPathComponent ?? other.identifier)); objects of different stores "
                + "cannot be related")
        }
    }

    /// Adds join-table rows and order positions for an object's changed to-many relationships.
    private func collectRelationshipChanges(of object: ManagedObject, schema: StoreSchema, into request: inout SaveRequest) {
        guard !object.entity.toManyIndexes.isEmpty else { return }
        let mapping = schema.mapping(for: object.entity)
        for index in object.entity.toManyIndexes where object.loadedToMany.contains(index) {
            guard case let .objects(current) = object.values![index] else { continue }
            let old = object.committedToMany[index] ?? []
            switch mapping.storage[index] {
            case let .joinTable(join, sourceColumn, _, orderColumn) where sourceColumn == join.firstColumn:
                let oldSet = Set(old)
                let currentSet = Set(current)
                for removed in old where !currentSet.contains(removed) {
                    request.joinChanges.append(.init(table: join, first: object.objectID, second: removed, order: nil, isInsert: false))
                }
                for (position, added) in current.enumerated() where !oldSet.contains(added) || (orderColumn != nil && old != current) {
                    request.joinChanges.append(.init(table: join, first: object.objectID, second: added, order: position + 1, isInsert: true))
                }
            case let .joinTable(join, sourceColumn, _, _?) where sourceColumn == join.secondColumn && old != current:
                // The inverse side of an ordered many-to-many relationship ordered on both
                // sides: its positions, in its own column of the owner's rows.
                for (position, member) in current.enumerated() {
                    request.joinChanges.append(.init(table: join, first: member, second: object.objectID, order: position + 1,
                                                     isInsert: true, setsInverseOrder: true))
                }
            case let .inverseForeignKey(table, _, _, orderColumn?) where old != current:
                for (position, member) in current.enumerated() {
                    request.orderChanges.append(.init(table: table, column: orderColumn, id: member, position: position + 1))
                }
            default:
                continue
            }
        }
    }
}

/// What a save writes to one store, and the new objects in the order of its inserts.
struct StoreSavePlan {
    let store: PersistentStore
    var request: SaveRequest
    var insertedObjects: [ManagedObject] = []
}
