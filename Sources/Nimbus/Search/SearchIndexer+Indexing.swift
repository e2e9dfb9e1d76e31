import Foundation
import GRDB

/// What one call to ``SearchIndexer/indexPendingChanges()`` or
/// ``SearchIndexer/rebuild()`` did.
public struct SearchIndexUpdate: Sendable, Hashable {
    /// History transactions read.
    public var transactions = 0
    /// Entries written (added or replaced).
    public var indexed = 0
    /// Entries removed.
    public var removed = 0
    /// Whether the whole index was rebuilt (first run, a rebuild asked for, a model
    /// change, or history purged past the indexer's cursor).
    public var rebuilt = false
    /// The last transaction indexed.
    public var transactionNumber: Int64 = 0
    /// Whether nothing ran because indexing is paused.
    public var paused = false

    /// An update that did nothing yet.
    public init() {}
}

extension SearchIndexer {
    /// Indexes the history written since the last run, in batches of ``batchSize``
    /// transactions, each batch's entries and cursor in one write transaction. The first
    /// run (or one after a model change or a purge past the cursor) rebuilds instead.
    ///
    /// For example, after a batch request or another process's saves:
    ///
    /// ```swift
    /// let update = try indexer.indexPendingChanges()
    /// print(update.indexed, update.removed)
    /// ```
    ///
    /// - Returns: what was done; nothing when ``isPaused``.
    /// - Throws: errors of the delegate or the store; the failing batch is not written, so
    ///   the next run starts from the same transaction.
    @discardableResult
    public func indexPendingChanges() throws -> SearchIndexUpdate {
        var update = SearchIndexUpdate()
        guard !isPaused else { update.paused = true; return update }
        let database = store.database
        let modelHash = database.model.versionHash.base64EncodedString()
        var rebuilds = 0
        while true {
            let (cursor, last, ready, sameModel, continues) = try database.read { db in
                let cursor = try SearchIndexStorage.cursor(db)
                let last = try HistoryStore.lastTransaction(db)
                return (cursor, last,
                        try SearchIndexStorage.info("state", db) == "ready",
                        try SearchIndexStorage.info("model", db) == modelHash,
                        try Self.historyContinues(after: cursor, last: last, db))
            }
            guard let cursor, ready, sameModel, continues else {
                // History purged during a rebuild can ask for another; never loop for ever.
                rebuilds += 1
                guard rebuilds <= 3 else {
                    throw NimbusError(.historyPurgeRefused, "the search index was rebuilt three times and history after it is still incomplete; "
                        + "stop purging history with ignoresConsumers while the indexer runs, then call indexPendingChanges() again")
                }
                let rebuild = try self.rebuild()
                update.indexed += rebuild.indexed
                update.rebuilt = true
                update.transactionNumber = rebuild.transactionNumber
                continue
            }
            guard cursor < last else {
                update.transactionNumber = cursor
                return update
            }
            let end = try database.read { db in try SearchIndexStorage.batchEnd(after: cursor, count: batchSize, last: last, db) }
            let changes = try database.read { db in
                try SearchIndexStorage.changes(after: cursor, upTo: end, model: database.model, storeKey: database.storeKey, db)
            }
            let (upserts, deletes) = try entries(for: changes)
            let written = try database.write { db -> Bool in
                // Another indexer (another process) may have moved on: redo from its cursor.
                guard try SearchIndexStorage.cursor(db) == cursor else { return false }
                try SearchIndexStorage.write(upserts: upserts, deletes: deletes, db)
                try SearchIndexStorage.setCursor(end, db)
                return true
            }
            guard written else { continue }
            update.transactions += Int(try database.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM ATRANSACTION WHERE Z_PK > ? AND Z_PK <= ?", arguments: [cursor, end]) ?? 0
            })
            update.indexed += upserts.count
            update.removed += deletes.count
            update.transactionNumber = end
        }
    }

    private static func historyContinues(after cursor: Int64?, last: Int64, _ db: Database) throws -> Bool {
        guard let cursor else { return false }
        return try cursor >= last || SearchIndexStorage.historyContinues(after: cursor, db)
    }

    /// Rebuilds the whole index from the objects in the store, in chunks of 1,000 objects;
    /// the cursor moves to the last transaction only when every chunk is written (a rebuild
    /// cut short starts over on the next run).
    ///
    /// - Throws: errors of the delegate or the store.
    @discardableResult
    public func rebuild() throws -> SearchIndexUpdate {
        let database = store.database
        let target = try database.write { db -> Int64 in
            let target = try HistoryStore.lastTransaction(db)
            try db.execute(sql: "DELETE FROM ANIMBUSSEARCH")
            try SearchIndexStorage.setInfo("state", "rebuilding", db)
            try SearchIndexStorage.setInfo("target", String(target), db)
            // Hold history from the target on, so a purge meanwhile cannot open a gap.
            if try SearchIndexStorage.cursor(db) == nil { try SearchIndexStorage.setCursor(target, db) }
            return target
        }
        var update = SearchIndexUpdate()
        update.rebuilt = true
        for entity in database.model.entities where !entity.isAbstract && delegate.indexes(entity) {
            var request = FetchRequest<ManagedObjectID>(entityName: entity.name)
            request.includesSubentities = false
            request.sortDescriptors = []
            let ids = try context.performAndWait { try context.fetch(request) }
            for start in stride(from: 0, to: ids.count, by: 1000) {
                let chunk = ids[start..<min(start + 1000, ids.count)]
                let (upserts, _) = try entries(for: Dictionary(uniqueKeysWithValues: chunk.map { ($0, false) }), dependents: false)
                try database.write { db in try SearchIndexStorage.write(upserts: upserts, deletes: [], db) }
                update.indexed += upserts.count
            }
        }
        try database.write { db in
            try SearchIndexStorage.setCursor(target, db)
            try SearchIndexStorage.setInfo("state", "ready", db)
            try SearchIndexStorage.setInfo("model", database.model.versionHash.base64EncodedString(), db)
        }
        update.transactionNumber = target
        return update
    }

    /// Deletes the index and its history consumer from the store (purges no longer wait
    /// for it). Stops automatic indexing.
    public func removeIndex() throws {
        stopIndexingAutomatically()
        try store.database.write { db in
            try db.execute(sql: "DROP TABLE IF EXISTS ANIMBUSSEARCH; DROP TABLE IF EXISTS ANIMBUSSEARCHINFO")
            try db.execute(sql: "DELETE FROM ANIMBUSHISTORYCONSUMER WHERE ZNAME = ?", arguments: [SearchIndexStorage.consumer])
        }
    }

    /// The entries to write for changed objects, on the background context: deleted
    /// objects' entries go, the others (and those that depend on them) are rebuilt.
    func entries(for changes: [ManagedObjectID: Bool], dependents: Bool = true) throws
        -> (upserts: [(ManagedObjectID, SearchableItem)], deletes: Set<ManagedObjectID>) {
        try context.performAndWait {
            defer { context.reset() }
            var deletes: Set<ManagedObjectID> = []
            var pending: [ManagedObjectID] = []
            for (id, deleted) in changes where delegate.indexes(id.entity) {
                if deleted { deletes.insert(id) } else { pending.append(id) }
            }
            var objects = try materialize(pending)
            if dependents {
                var extra: Set<ManagedObjectID> = []
                for object in objects.values {
                    for id in try delegate.objectIDsToReindex(whenChanged: object) where objects[id] == nil && changes[id] == nil {
                        extra.insert(id)
                    }
                }
                objects.merge(try materialize(Array(extra))) { first, _ in first }
            }
            var upserts: [(ManagedObjectID, SearchableItem)] = []
            for id in pending where objects[id] == nil { deletes.insert(id) }   // gone since
            for (id, object) in objects {
                if let item = try delegate.searchableItem(for: object), !item.isEmpty {
                    upserts.append((id, item))
                } else {
                    deletes.insert(id)
                }
            }
            return (upserts, deletes)
        }
    }

    /// Reads objects by ID, a fetch per entity and 500 IDs; missing ones are left out.
    private func materialize(_ ids: [ManagedObjectID]) throws -> [ManagedObjectID: ManagedObject] {
        var result: [ManagedObjectID: ManagedObject] = [:]
        let byEntity = Dictionary(grouping: ids, by: { $0.entity.name })
        for (name, ids) in byEntity {
            for start in stride(from: 0, to: ids.count, by: 500) {
                var request = FetchRequest<ManagedObject>(entityName: name)
                request.includesSubentities = false
                request.returnsObjectsAsFaults = false
                request.predicate = try QueryPredicate(format: "SELF IN %@", Array(ids[start..<min(start + 500, ids.count)]))
                for object in try context.fetch(request) { result[object.objectID] = object }
            }
        }
        return result
    }
}
