import Foundation
import GRDB

extension ManagedObjectContext {
    /// Fetches the objects, IDs, dictionaries or count a request describes.
    ///
    /// Unsaved changes of the context count unless ``FetchRequest/includesPendingChanges``
    /// is false: new objects that match are included, deleted ones left out, and changed
    /// ones judged by their current values.
    ///
    /// - Throws: ``NimbusError`` with ``NimbusError/Code-swift.struct/unknownEntity``,
    ///   ``NimbusError/Code-swift.struct/unknownProperty``,
    ///   ``NimbusError/Code-swift.struct/invalidPredicate``,
    ///   ``NimbusError/Code-swift.struct/typeMismatch`` or a SQLite error.
    public func fetch<Result>(_ request: FetchRequest<Result>) throws -> [Result] {
        checkQueue()
        let entity = try entity(named: request.entityName)
        switch request.resultType {
        case .count:
            guard let count = try count(for: request) as? Result else {
                throw NimbusError(.typeMismatch, "a count request returns Int; declare it as FetchRequest<Int>")
            }
            return [count]
        case .dictionary:
            guard Result.self == [String: Any].self || Result.self == Any.self else {
                throw NimbusError(.typeMismatch, "a request with resultType .dictionary returns [String: Any], not \(Result.self); "
                    + "declare it as FetchRequest<[String: Any]>")
            }
            let rows = try fetchDictionaries(request, entity: entity)
            return rows.map { $0 as! Result }
        case .managedObjectID:
            guard Result.self == ManagedObjectID.self || Result.self == Any.self else {
                throw NimbusError(.typeMismatch, "a request with resultType .managedObjectID returns ManagedObjectID, not \(Result.self); "
                    + "declare it as FetchRequest<ManagedObjectID>")
            }
            let ids = try fetchMatchingIDs(request, entity: entity)
            return ids.map { $0 as! Result }
        case .managedObject:
            let objects = try fetchObjects(request, entity: entity)
            if Result.self == ManagedObject.self { return unsafeBitCast(objects, to: [Result].self) }
            // A typed class (`FetchRequest<Post>`): objects of exactly that class need no
            // generic cast each (which costs more than materializing them).
            if let resultClass = Result.self as? ManagedObject.Type,
               objects.allSatisfy({ ObjectIdentifier(type(of: $0)) == ObjectIdentifier(resultClass) }) {
                return unsafeBitCast(objects, to: [Result].self)
            }
            return try objects.map { object in
                guard let typed = object as? Result else {
                    throw NimbusError(.typeMismatch, "\(object.entity.name) objects are \(type(of: object)), not \(Result.self); set the entity's class in the model")
                }
                return typed
            }
        }
    }

    /// The number of objects a request would fetch.
    public func count<Result>(for request: FetchRequest<Result>) throws -> Int {
        checkQueue()
        let entity = try entity(named: request.entityName)
        if parent != nil { return try fetchMatchingIDs(request, entity: entity).count }
        if request.includesPendingChanges, !pendingObjects(of: entity, request).isEmpty {
            return try fetchMatchingIDs(request, entity: entity).count
        }
        let stores = try self.stores(for: entity, affectedBy: request.affectedStores)
        var total = 0
        // Over several stores, limit and offset apply to the whole result, not to each store.
        let sliced = stores.count == 1
        for store in stores {
            let query = try selectQuery(request, entity: entity, sliced: sliced)
            total += try read(store) { db in try store.database.count(query, db) }
        }
        if !sliced {
            total = max(0, total - request.fetchOffset)
            if request.fetchLimit > 0 { total = min(total, request.fetchLimit) }
        }
        return total
    }

    // MARK: Plans

    func selectQuery<Result>(_ request: FetchRequest<Result>, entity: EntityDescription, sliced: Bool) throws -> SelectQuery {
        var compiler = PredicateSQLCompiler(entity: entity, schema: managedObjectModel.schema)
        compiler.unavailableRTrees = try unavailableRTrees(for: entity)
        var query = SelectQuery(entity: entity)
        query.includesSubentities = request.includesSubentities
        if let predicate = request.predicate { query.condition = try compiler.condition(predicate) }
        if !request.sortDescriptors.isEmpty { query.orderBy = try compiler.orderBy(request.sortDescriptors) }
        query.arguments = compiler.arguments
        query.joins = compiler.joins
        if sliced {
            if request.fetchLimit > 0 { query.limit = request.fetchLimit }
            if request.fetchOffset > 0 { query.offset = request.fetchOffset }
        }
        return query
    }

    /// R-trees some store of the entity lacks (read-only stores written before the index
    /// was declared): fetches compare columns directly instead.
    func unavailableRTrees(for entity: EntityDescription) throws -> Set<String> {
        guard !managedObjectModel.schema.rTrees.isEmpty else { return [] }
        return try persistentStoreCoordinator.stores(for: entity).reduce(into: Set<String>()) { $0.formUnion($1.database.unavailableRTrees) }
    }

    /// Registered objects of the entity with unsaved changes that a fetch must account for.
    func pendingObjects<Result>(of entity: EntityDescription, _ request: FetchRequest<Result>) -> [ManagedObject] {
        guard request.includesPendingChanges else { return [] }
        func relevant(_ object: ManagedObject) -> Bool {
            request.includesSubentities ? object.entity.isKind(of: entity) : object.entity === entity
        }
        let changed = changedSet.filter { relevant($0) && $0.hasPersistentChangedValues }
        return Array(insertedSet.filter(relevant).union(deletedSet.filter(relevant)).union(changed))
    }

    // MARK: Objects

    private func fetchObjects<Result>(_ request: FetchRequest<Result>, entity: EntityDescription) throws -> [ManagedObject] {
        let pending = pendingObjects(of: entity, request)
        if parent != nil {
            // A nested context sees what its parent sees, then its own unsaved changes.
            let widened = request.fetchLimit > 0 ? request.fetchOffset + request.fetchLimit + pending.count : nil
            let ids = try fetchIDsThroughParent(request, sliced: pending.isEmpty, widenedLimit: widened)
            let objects = ids.map { object(with: $0) }
            return pending.isEmpty ? objects : try mergePending(objects, pending: pending, request: request)
        }
        let stores = try self.stores(for: entity, affectedBy: request.affectedStores)
        let merging = !pending.isEmpty || stores.count > 1
        var query = try selectQuery(request, entity: entity, sliced: !merging)
        if merging && request.fetchLimit > 0 {
            // The merged result's first offset + limit objects come from each store's first
            // offset + limit rows beyond the pending objects (each can displace one row).
            query.limit = request.fetchOffset + request.fetchLimit + pending.count
        }
        var objects: [ManagedObject] = []

        if request.fetchBatchSize > 0 && stores.count == 1 {
            let store = stores[0]
            let ids = try read(store) { db in try store.database.fetchIDs(query, db) }
            let group = BatchFaultGroup(ids: ids, batchSize: request.fetchBatchSize)
            objects.reserveCapacity(ids.count)
            reserveRegistryCapacity(ids.count)
            for (position, id) in ids.enumerated() {
                let object = self.object(with: id)
                if object.values == nil && object.committed == nil { object.batch = (group, position) }
                objects.append(object)
            }
        } else if !request.includesPropertyValues {
            for store in stores {
                let ids = try read(store) { db in try store.database.fetchIDs(query, db) }
                objects.reserveCapacity(objects.count + ids.count)
                reserveRegistryCapacity(ids.count)
                for id in ids { objects.append(self.object(with: id)) }
            }
        } else {
            // Rows become objects as they are read (the context's queue waits on the read, so
            // the registry is still ours), a run of rows at a time: the objects of a run are
            // made one after another, so they lie side by side in memory, apart from the
            // rows' values, and a loop over the result reads them in order. awakeFromFetch
            // runs after the read has ended.
            var awakened: [ManagedObject] = []
            registry.sweepIfWorthwhile()
            registry.suspendSweeps()
            defer { registry.resumeSweeps() }
            // The rows wait in a buffer they are moved into and out of: copies would cost a
            // retain and a release of each row's entity and values.
            let run = UnsafeMutableBufferPointer<(id: ManagedObjectID, snapshot: RowSnapshot)>.allocate(capacity: Self.materializationRun)
            var waiting = 0
            defer {
                _ = run.extracting(0..<waiting).deinitialize()
                run.deallocate()
            }
            func materializeRun() {
                for index in 0..<waiting {
                    let row = run.moveElement(from: index)
                    objects.append(materialize(row.id, snapshot: row.snapshot, asFault: request.returnsObjectsAsFaults, awakened: &awakened))
                }
                waiting = 0
            }
            for store in stores {
                try read(store) { db in
                    try store.database.forEachSnapshot(query, db) { id, snapshot in
                        run.initializeElement(at: waiting, to: (id, snapshot))
                        waiting += 1
                        if waiting == Self.materializationRun { materializeRun() }
                    }
                    materializeRun()
                }
            }
            for object in awakened { object.awakeFromFetch() }
        }

        if merging {
            objects = try mergePending(objects, pending: pending, request: request)
        }
        if !request.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(request.relationshipKeyPathsForPrefetching, for: objects)
        }
        if !entity.toManyIndexes.isEmpty { toManyFaultBatcher.remember(objects, fetchBatchSize: request.fetchBatchSize) }
        return objects
    }

    /// How many fetched rows are read before their objects are made (see `fetchObjects`).
    static let materializationRun = 1024

    /// The object for a fetched row: the registered one (given the row if it is a fault),
    /// or a new one. Objects whose values were loaded and whose class may override
    /// ``ManagedObject/awakeFromFetch()`` are added to `awakened`, for the caller to wake.
    @inline(__always)
    func materialize(_ id: ManagedObjectID, snapshot: RowSnapshot, asFault: Bool, awakened: inout [ManagedObject]) -> ManagedObject {
        materialize(id, asFault: asFault, awakened: &awakened) { snapshot }
    }

    /// ``materialize(_:snapshot:asFault:awakened:)`` for a row decoded only when it is needed:
    /// an object already loaded here keeps its values, so its row is not decoded.
    @inline(__always)
    func materialize<Failure: Error>(_ id: ManagedObjectID, asFault: Bool, awakened: inout [ManagedObject],
                                     row: () throws(Failure) -> RowSnapshot) throws(Failure) -> ManagedObject {
        let objectClass = id.entity.managedObjectClass
        let (object, isNew) = registry.object(for: id) {
            // Made as a fault and given the row here: the row is not copied into the
            // materialization first.
            objectClass.init(materializing: .init(id: id, context: reference, snapshot: nil, asFault: true))
        }
        if isNew {
            let snapshot = try row()
            object.committed = snapshot
            if !asFault {
                object.values = snapshot.values
                if objectClass != ManagedObject.self {
                    object.loadTypedValuesIfTyped()
                    awakened.append(object)
                }
            }
        } else if object.values == nil {
            let snapshot = try row()
            object.committed = snapshot
            if !asFault {
                object.fulfill(with: snapshot, awakening: false)
                awakened.append(object)
            }
        }
        return object
    }

    /// ``materialize(_:snapshot:asFault:awakened:)`` for one row, woken at once.
    func materialize(_ id: ManagedObjectID, snapshot: RowSnapshot, asFault: Bool) -> ManagedObject {
        var awakened: [ManagedObject] = []
        let object = materialize(id, snapshot: snapshot, asFault: asFault, awakened: &awakened)
        for object in awakened { object.awakeFromFetch() }
        return object
    }

    /// Applies unsaved changes to fetched objects, then orders and slices in memory.
    private func mergePending<Result>(_ fetched: [ManagedObject], pending: [ManagedObject], request: FetchRequest<Result>) throws -> [ManagedObject] {
        let pendingSet = Set(pending)
        var result = fetched.filter { !pendingSet.contains($0) && !$0.flags.isDeleted }
        for object in pending where !object.flags.isDeleted {
            if try request.predicate?.evaluate(with: object) ?? true { result.append(object) }
        }
        if !request.sortDescriptors.isEmpty {
            result.sort { a, b in FetchSortDescriptor.areInIncreasingOrder(a, b, by: request.sortDescriptors) }
        }
        if request.fetchOffset > 0 { result = Array(result.dropFirst(request.fetchOffset)) }
        if request.fetchLimit > 0 { result = Array(result.prefix(request.fetchLimit)) }
        return result
    }

    private func fetchMatchingIDs<Result>(_ request: FetchRequest<Result>, entity: EntityDescription) throws -> [ManagedObjectID] {
        let pending = pendingObjects(of: entity, request)
        if parent != nil && pending.isEmpty { return try fetchIDsThroughParent(request, sliced: true) }
        let stores = try self.stores(for: entity, affectedBy: request.affectedStores)
        if pending.isEmpty && stores.count == 1 && parent == nil {
            let query = try selectQuery(request, entity: entity, sliced: true)
            return try read(stores[0]) { db in try stores[0].database.fetchIDs(query, db) }
        }
        var objectRequest = request
        var typed = FetchRequest<ManagedObject>(entityName: request.entityName)
        typed.predicate = objectRequest.predicate
        typed.sortDescriptors = objectRequest.sortDescriptors
        typed.fetchLimit = objectRequest.fetchLimit
        typed.fetchOffset = objectRequest.fetchOffset
        typed.includesSubentities = objectRequest.includesSubentities
        typed.includesPendingChanges = objectRequest.includesPendingChanges
        typed.affectedStores = objectRequest.affectedStores
        objectRequest.resultType = .managedObject
        return try fetchObjects(typed, entity: entity).map(\.objectID)
    }

    /// Reads many rows in a few queries and gives them to their (fault) objects.
    func loadSnapshots(for ids: [ManagedObjectID]) throws {
        let byStore = Dictionary(grouping: ids.filter { !$0.isTemporaryID }) { "\($0.storeIdentifier)/\($0.entity.rootEntityNumber)" }
        for group in byStore.values {
            let store = try persistentStoreCoordinator.store(for: group[0])
            let snapshots = try read(store) { db in try store.database.snapshots(for: group, db) }
            for (id, snapshot) in snapshots {
                if !isPinned { persistentStoreCoordinator.rowCache.store(snapshot, for: id) }
                let object = self.object(with: id)
                if object.values == nil { object.fulfill(with: snapshot) }
            }
        }
    }
}

/// Faults from a fetch with a batch size: firing one loads its whole batch.
final class BatchFaultGroup {
    let ids: [ManagedObjectID]
    let batchSize: Int

    init(ids: [ManagedObjectID], batchSize: Int) {
        self.ids = ids
        self.batchSize = batchSize
    }

    func batch(containing position: Int) -> ArraySlice<ManagedObjectID> {
        let start = (position / batchSize) * batchSize
        return ids[start..<min(start + batchSize, ids.count)]
    }
}
