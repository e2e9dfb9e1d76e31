import Foundation
import GRDB

extension ManagedObjectContext {
    /// Fetches or purges persistent history in every store of the coordinator that tracks it.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidToken`` for a token of another store,
    ///   or past the last transaction; ``NimbusError/Code-swift.struct/historyPurgeRefused``
    ///   when a purge would remove history a registered consumer has not read.
    public func execute(_ request: PersistentHistoryChangeRequest) throws -> PersistentHistoryResult {
        checkQueue()
        var total = PersistentHistoryResult()
        var stores = persistentStoreCoordinator.persistentStores
        if case let .fetch(.token(token?)) = request.operation { stores = stores.filter { $0.identifier == token.storeIdentifier } }
        if case let .delete(.token(token?)) = request.operation { stores = stores.filter { $0.identifier == token.storeIdentifier } }
        if stores.isEmpty, case let .fetch(.token(token?)) = request.operation {
            throw NimbusError(.invalidToken, "the history token belongs to store \(token.storeIdentifier), which is not in this coordinator")
        }
        if stores.isEmpty, case let .delete(.token(token?)) = request.operation {
            throw NimbusError(.invalidToken, "the history token belongs to store \(token.storeIdentifier), which is not in this coordinator")
        }
        for store in stores {
            let result: PersistentHistoryResult
            switch request.operation {
            case let .fetch(bound):
                result = try store.database.read { db in try store.database.fetchHistory(request, after: bound, db) }
            case let .delete(bound):
                guard !store.isReadOnly else { throw NimbusError(.readOnlyStore, "cannot purge history of a read-only store") }
                result = try store.database.write { db in try store.database.purgeHistory(request, before: bound, db) }
            }
            total.count += result.count
            total.transactions += result.transactions
        }
        return total
    }

    /// Merges transactions read from history: objects the context holds take the saved
    /// values (keeping the context's unsaved changes), deleted objects go away. This is how
    /// a context sees changes made by other processes and by batch requests.
    public func mergeChanges(fromHistory transactions: [PersistentHistoryTransaction]) {
        checkQueue()
        var combined = SaveNotification()
        for transaction in transactions {
            let notification = transaction.objectIDNotification()
            combined.insertedObjectIDs.formUnion(notification.insertedObjectIDs)
            combined.updatedObjectIDs.formUnion(notification.updatedObjectIDs)
            combined.deletedObjectIDs.formUnion(notification.deletedObjectIDs)
        }
        combined.updatedObjectIDs.subtract(combined.deletedObjectIDs)
        persistentStoreCoordinator.rowCache.remove(combined.insertedObjectIDs.union(combined.updatedObjectIDs).union(combined.deletedObjectIDs))
        mergeChanges(fromContextDidSave: combined)
    }
}

extension PersistentStoreCoordinator {
    /// The position after the last transaction of a store (of the first store for nil).
    public func currentPersistentHistoryToken(fromStore store: PersistentStore? = nil) throws -> PersistentHistoryToken? {
        guard let store = store ?? persistentStores.first else { return nil }
        return try store.database.read { db in
            guard try HistoryStore.isPrepared(db) else { return nil }
            return PersistentHistoryToken(storeIdentifier: store.identifier, transactionNumber: try HistoryStore.lastTransaction(db))
        }
    }

    /// Records how far a consumer (an app extension, a sync engine, …) has read a store's
    /// history. Purges never pass the slowest registered consumer unless forced.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/invalidToken`` for a token of another store.
    public func setHistoryToken(_ token: PersistentHistoryToken, forConsumer name: String) throws {
        guard let store = persistentStore(identifier: token.storeIdentifier) else {
            throw NimbusError(.invalidToken, "the history token belongs to store \(token.storeIdentifier), which is not in this coordinator")
        }
        try store.database.write { db in
            try HistoryStore.prepare(db)
            try store.database.validate(token, db)
            try db.execute(sql: "INSERT OR REPLACE INTO ANIMBUSHISTORYCONSUMER (ZNAME, ZTRANSACTION) VALUES (?, ?)",
                           arguments: [name, token.transactionNumber])
        }
    }

    /// Forgets a consumer: purges no longer wait for it.
    public func removeHistoryConsumer(_ name: String, fromStore store: PersistentStore) throws {
        try store.database.write { db in
            if try db.tableExists("ANIMBUSHISTORYCONSUMER") {
                try db.execute(sql: "DELETE FROM ANIMBUSHISTORYCONSUMER WHERE ZNAME = ?", arguments: [name])
            }
        }
    }

    /// The registered consumers of a store's history and how far each has read.
    public func historyConsumers(ofStore store: PersistentStore) throws -> [String: PersistentHistoryToken] {
        try store.database.read { db in
            guard try db.tableExists("ANIMBUSHISTORYCONSUMER") else { return [:] }
            var result: [String: PersistentHistoryToken] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT ZNAME, ZTRANSACTION FROM ANIMBUSHISTORYCONSUMER") {
                result[row[0]] = PersistentHistoryToken(storeIdentifier: store.identifier, transactionNumber: row[1])
            }
            return result
        }
    }
}
