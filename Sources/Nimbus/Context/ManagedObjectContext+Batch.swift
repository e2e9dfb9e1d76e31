import Foundation
import GRDB

extension ManagedObjectContext {
    /// Runs a batch insert in one transaction (recorded in history when tracking is on).
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unknownProperty``,
    ///   ``NimbusError/Code-swift.struct/typeMismatch`` (nothing is inserted).
    @discardableResult
    public func execute(_ request: BatchInsertRequest) throws -> BatchResult {
        checkQueue()
        let entity = try entity(named: request.entityName)
        guard !entity.isAbstract else { throw NimbusError(.invalidArgument, "entity \(entity.name) is abstract") }
        // Defaults once; each row starts from a copy.
        let defaults = entity.properties.map { property -> PropertyValue in
            if let attribute = property.attribute { return attribute.defaultValue ?? .null }
            return .null
        }
        func convert(_ dictionary: [String: Any]) throws -> [PropertyValue] {
            var values = defaults
            for (key, value) in dictionary {
                guard let index = entity.propertyIndexes[key] else {
                    throw NimbusError(.unknownProperty, "\(entity.name) has no property \(key)")
                }
                guard let attribute = entity.properties[index].attribute else {
                    throw NimbusError(.unsupported, "batch inserts set attributes only; \(entity.name).\(key) is a relationship")
                }
                values[index] = try PropertyValue(value, for: attribute.type, transformerName: attribute.valueTransformerName)
            }
            return values
        }
        // Rows are made one at a time while they are written (a handler's rows are never all
        // in memory); a bad value throws and the transaction writes nothing.
        var handlerDone = request.dictionaryHandler == nil && request.managedObjectHandler == nil
        var objects = request.objects.makeIterator()
        let scratch = request.managedObjectHandler.map { _ in
            ManagedObjectContext(concurrencyType: .privateQueue, coordinator: persistentStoreCoordinator)
        }
        let store = try persistentStoreCoordinator.defaultStore(for: entity)
        let result = try store.database.batchInsert(entity: entity, author: transactionAuthor, contextName: name,
                                                    history: store.storeDescription.persistentHistoryTracking,
                                                    keepsIDs: request.resultType == .objectIDs) { () throws -> [PropertyValue]? in
            if !handlerDone, let handler = request.dictionaryHandler {
                var dictionary: [String: Any] = [:]
                if !handler(&dictionary) { return try convert(dictionary) }
                handlerDone = true
            }
            if !handlerDone, let handler = request.managedObjectHandler, let scratch {
                let dictionary = try scratch.performAndWait { () throws -> [String: Any]? in
                    defer { scratch.reset() }
                    let object = try scratch.insertNewObject(forEntityName: entity.name)
                    if handler(object) { return nil }
                    var dictionary: [String: Any] = [:]
                    for property in entity.properties where property.attribute.map({ !$0.isTransient }) ?? false {
                        if let value = object.value(forKey: property.name) { dictionary[property.name] = value }
                    }
                    return dictionary
                }
                if let dictionary { return try convert(dictionary) }
                handlerDone = true
            }
            return try objects.next().map(convert)
        }
        return BatchResult(status: true, count: result.count, objectIDs: request.resultType == .objectIDs ? result.ids : [])
    }

    /// Runs a batch update in one transaction, without loading objects.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unknownProperty``,
    ///   ``NimbusError/Code-swift.struct/typeMismatch`` (nothing is updated).
    @discardableResult
    public func execute(_ request: BatchUpdateRequest) throws -> BatchResult {
        checkQueue()
        let entity = try entity(named: request.entityName)
        guard !request.propertiesToUpdate.isEmpty else {
            throw NimbusError(.invalidArgument, "a batch update needs propertiesToUpdate")
        }
        var result = BatchResult()
        let stores = try persistentStoreCoordinator.stores(for: entity)
        // Over several stores, one transaction on each: all of them change or none.
        try inOneTransaction(across: stores) {
        for store in stores {
            var compiler = PredicateSQLCompiler(entity: entity, schema: managedObjectModel.schema)
            compiler.unavailableRTrees = store.database.unavailableRTrees
            var query = SelectQuery(entity: entity)
            if let predicate = request.predicate { query.condition = try compiler.condition(predicate) }
            query.joins = compiler.joins
            query.arguments = compiler.arguments
            var assignments: [(column: String, sql: String, arguments: [DatabaseValue], index: Int)] = []
            let mapping = managedObjectModel.schema.mapping(for: entity)
            for key in request.propertiesToUpdate.keys.sorted() {
                guard let index = entity.propertyIndexes[key], let attribute = entity.properties[index].attribute,
                      case let .column(column) = mapping.storage[index] else {
                    throw NimbusError(.unknownProperty, "\(entity.name) has no stored attribute \(key) to update")
                }
                let value = request.propertiesToUpdate[key]!
                if let expression = value as? QueryExpression {
                    var expressionCompiler = PredicateSQLCompiler(entity: entity, schema: managedObjectModel.schema)
                    let (sql, _) = try expressionCompiler.expression(expression)
                    guard expressionCompiler.joins.isEmpty else {
                        throw NimbusError(.unsupported, "batch update expressions may use the row's own attributes only")
                    }
                    // The UPDATE names its table t0, so the expression's columns resolve to the row.
                    // Each value is checked against the attribute's type in SQL: a REAL in an
                    // integer column (views * 1e30, an overflow) stops the update.
                    let checked = "\(SQLFunctions.checked)(\(sql), '\(attribute.type.rawValue)', '\(entity.name).\(key)')"
                    assignments.append((column, checked, expressionCompiler.arguments, index))
                } else {
                    let converted = try PropertyValue(value, for: attribute.type, transformerName: attribute.valueTransformerName)
                    if let failure = attribute.validationFailure(for: converted) {
                        throw NimbusError(.validationFailed, "\(entity.name).\(key): \(failure)")
                    }
                    try SQLiteBinding.checkLength(converted)
                    assignments.append((column, "?", [converted.databaseValue], index))
                }
            }
            let part = try store.database.batchUpdate(query, assignments: assignments, wantIDs: request.resultType == .objectIDs,
                                                      author: transactionAuthor, contextName: name,
                                                      history: store.storeDescription.persistentHistoryTracking)
            result.count += part.count
            result.objectIDs += part.objectIDs
        }
        }
        persistentStoreCoordinator.rowCache.removeAll()
        return result
    }

    /// Runs a batch delete in one transaction, without loading objects.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/deleteDenied`` when a `deny` rule blocks it
    ///   (nothing is deleted).
    @discardableResult
    public func execute(_ request: BatchDeleteRequest) throws -> BatchResult {
        checkQueue()
        var result = BatchResult()
        switch request.target {
        case let .fetch(fetch):
            let entity = try entity(named: fetch.entityName)
            let stores = try persistentStoreCoordinator.stores(for: entity)
            try inOneTransaction(across: stores) {
            for store in stores {
                var typed = fetch
                typed.sortDescriptors = []
                typed.fetchLimit = 0
                typed.fetchOffset = 0
                let query = try selectQuery(typed, entity: entity, sliced: false)
                let part = try store.database.batchDelete(.query(query), wantIDs: request.resultType == .objectIDs,
                                                          author: transactionAuthor, contextName: name,
                                                          history: store.storeDescription.persistentHistoryTracking)
                result.count += part.count
                result.objectIDs += part.objectIDs
            }
            }
        case let .objectIDs(ids):
            var groups: [(PersistentStore, [ManagedObjectID])] = []
            for (storeID, group) in Dictionary(grouping: ids.filter { !$0.isTemporaryID }, by: \.storeIdentifier) {
                guard let store = persistentStoreCoordinator.persistentStore(identifier: storeID) else {
                    throw NimbusError(.invalidObjectID, "\(group[0]) belongs to no store of this coordinator")
                }
                groups.append((store, group))
            }
            try inOneTransaction(across: groups.map(\.0)) {
            for (store, group) in groups {
                let part = try store.database.batchDelete(.ids(group), wantIDs: request.resultType == .objectIDs,
                                                          author: transactionAuthor, contextName: name,
                                                          history: store.storeDescription.persistentHistoryTracking)
                result.count += part.count
                result.objectIDs += part.objectIDs
            }
            }
        }
        persistentStoreCoordinator.rowCache.removeAll()
        return result
    }

    /// Merges changes made outside contexts (batch requests, other processes) into
    /// contexts: updated objects are refreshed, deleted ones removed.
    ///
    /// ```swift
    /// let result = try context.execute(deleteRequest)   // resultType = .objectIDs
    /// ManagedObjectContext.mergeChanges(fromRemoteContextSave: SaveNotification(deletedObjectIDs: Set(result.objectIDs)),
    ///                                   into: [viewContext])
    /// ```
    public static func mergeChanges(fromRemoteContextSave changes: SaveNotification, into contexts: [ManagedObjectContext]) {
        for context in contexts {
            context.performAndWait {
                context.persistentStoreCoordinator.rowCache.remove(changes.insertedObjectIDs.union(changes.updatedObjectIDs).union(changes.deletedObjectIDs))
                context.mergeChanges(fromContextDidSave: changes)
            }
        }
    }

    /// Runs `work` in one write transaction on each store when there are several (all of
    /// them commit or none), else as it is.
    func inOneTransaction(across stores: [PersistentStore], _ work: () throws -> Void) throws {
        guard stores.count > 1 else { return try work() }
        try SharedTransaction.run(across: stores.sorted { $0.identifier < $1.identifier }.map(\.database), work)
    }
}
