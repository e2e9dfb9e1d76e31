import Foundation
import GRDB
import Synchronization

extension ManagedObjectContext {
    /// Fetches without blocking the context's queue while rows are read, reporting
    /// progress and stopping when the task is cancelled: Core Data's asynchronous fetch.
    ///
    /// Rows are read off the context's queue (the context stays free for other work);
    /// the objects are then registered on the queue in one step. When the context has
    /// unsaved changes of the entity, or the entity spans several stores, or the request
    /// asks for dictionaries or a count, or the context is pinned to a query generation or
    /// nested in a parent context, the fetch runs on the context's queue instead and
    /// the progress completes at once. Use the objects on the context's queue. For example:
    ///
    /// ```swift
    /// let task = Task {
    ///     try await context.fetch(request, progress: FetchProgress { print($0.fractionCompleted) })
    /// }
    /// task.cancel()   // the fetch throws CancellationError; the context is unchanged
    /// ```
    ///
    /// - Parameters:
    ///   - request: what to fetch.
    ///   - progress: told how many rows were read; nil for none.
    /// - Throws: `CancellationError` when the task is cancelled, or the errors of
    ///   ``fetch(_:)``.
    public func fetch<Result: SendableMetatype>(_ request: FetchRequest<Result>, progress: FetchProgress? = nil) async throws -> [Result] {
        try Task.checkCancellation()
        let plan = try await perform { () throws -> UncheckedSendable<AsynchronousFetchPlan<Result>> in
            UncheckedSendable(try self.asynchronousFetchPlan(request, progress: progress))
        }.value
        guard case let .read(store, query, idsOnly, total) = plan else {
            if case let .done(results) = plan { return results }
            preconditionFailure("unreachable")
        }
        progress?.start(total: total)
        let cancelled = CancellationFlag()
        let rows = try await withTaskCancellationHandler {
            do {
                try store.database.gate.enter(store.identifier)
                defer { store.database.gate.leave() }
                return try await store.database.writer.read { db in
                    try store.database.fetchSnapshots(query, idsOnly: idsOnly, progress: progress, cancelled: cancelled, db)
                }
            } catch {
                if Task.isCancelled || cancelled.isSet { throw CancellationError() }
                if let error = error as? DatabaseError { throw NimbusError.from(error, path: nil) }
                throw error
            }
        } onCancel: {
            cancelled.set()
        }
        try Task.checkCancellation()
        return try await perform { () throws -> UncheckedSendable<[Result]> in
            UncheckedSendable(try self.registerAsynchronousRows(rows, request: request))
        }.value
    }

    /// Decides, on the context's queue, whether rows can be read off the queue.
    private func asynchronousFetchPlan<Result>(_ request: FetchRequest<Result>, progress: FetchProgress?) throws -> AsynchronousFetchPlan<Result> {
        let entity = try entity(named: request.entityName)
        let stores = try persistentStoreCoordinator.stores(for: entity)
        let streamable = (request.resultType == .managedObject || request.resultType == .managedObjectID)
            && stores.count == 1 && pendingObjects(of: entity, request).isEmpty && !isPinned && parent == nil
        guard streamable else {
            let results = try fetch(request)
            progress?.start(total: results.count)
            progress?.advance(to: results.count)
            return .done(results)
        }
        let store = stores[0]
        let query = try selectQuery(request, entity: entity, sliced: true)
        let total = try read(store) { db in try store.database.count(query, db) }
        let idsOnly = request.resultType == .managedObjectID || !request.includesPropertyValues
        return .read(store, query, idsOnly: idsOnly, total: total)
    }

    /// Registers rows read off the queue as objects (or returns their IDs).
    private func registerAsynchronousRows<Result>(_ rows: [(ManagedObjectID, RowSnapshot?)], request: FetchRequest<Result>) throws -> [Result] {
        if request.resultType == .managedObjectID { return rows.compactMap { $0.0 as? Result } }
        let objects = rows.map { id, snapshot in
            snapshot.map { materialize(id, snapshot: $0, asFault: request.returnsObjectsAsFaults) } ?? object(with: id)
        }
        if !request.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(request.relationshipKeyPathsForPrefetching, for: objects)
        }
        return try objects.map { object in
            guard let typed = object as? Result else {
                throw NimbusError(.typeMismatch, "\(object.entity.name) objects are \(type(of: object)), not \(Result.self); set the entity's class in the model")
            }
            return typed
        }
    }
}

/// What an asynchronous fetch does after its first step on the context's queue.
enum AsynchronousFetchPlan<Result> {
    /// Already fetched on the queue.
    case done([Result])
    /// Read these rows off the queue.
    case read(PersistentStore, SelectQuery, idsOnly: Bool, total: Int)
}

/// Set when the task of an asynchronous fetch is cancelled; the reading loop checks it.
final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
}

/// Moves a value that is not `Sendable` between the context's queue and its caller, when
/// only one side uses it at a time.
struct UncheckedSendable<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

extension SQLiteDatabase {
    /// Rows as IDs with snapshots (or IDs only), reporting progress and stopping when
    /// `cancelled` becomes true.
    func fetchSnapshots(_ query: SelectQuery, idsOnly: Bool, progress: FetchProgress?, cancelled: CancellationFlag,
                        _ db: Database) throws -> [(ManagedObjectID, RowSnapshot?)] {
        let reader = reader(for: query.entity)
        let columns = idsOnly ? "t0.Z_PK, t0.Z_ENT" : reader.selectList
        let sql = "SELECT \(columns) " + query.fromClause(reader: reader) + query.tail
        let started = ContinuousClock.now
        let arguments = StatementArguments(query.arguments)
        let statement = try db.cachedStatement(sql: sql)
        let cursor = try Row.fetchCursor(statement, arguments: arguments)
        let interval = progress?.reportingInterval ?? 256
        var result: [(ManagedObjectID, RowSnapshot?)] = []
        while let row = try cursor.next() {
            if idsOnly {
                result.append((try objectID(ofRow: row, reader: reader), nil))
            } else {
                result.append(try reader.read(statement: statement.sqliteStatement, storeKey: storeKey, model: model))
            }
            if result.count % 256 == 0, cancelled.isSet { throw CancellationError() }
            if result.count % interval == 0 { progress?.advance(to: result.count) }
        }
        if result.isEmpty || result.count % interval != 0 { progress?.advance(to: result.count) }
        SQLDebug.logFetch(sql: sql, arguments: arguments, rows: result.count, started: started, db: db)
        return result
    }
}
