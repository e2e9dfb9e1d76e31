import Foundation
import GRDB

extension MigrationManager {
    /// Carries the history that a registered consumer has not read into the new store, so
    /// that no migration drops it (decision 0069): each unread transaction keeps its author,
    /// context name and time, and its changes name the objects by their keys in the new
    /// store and their properties by name. They come before the migration's own transaction
    /// (which inserts every object), and each consumer's position moves with them.
    ///
    /// Changes of objects the new store does not hold (deleted before the migration, or left
    /// behind by the mapping) are dropped: their keys would name other objects now.
    func carryUnreadHistory(from sourceStore: PersistentStore, into destinationStore: PersistentStore) throws {
        let unread = try sourceStore.database.read { db -> (consumers: [String: Int64], transactions: [PersistentHistoryTransaction])? in
            guard try HistoryStore.isPrepared(db), try db.tableExists("ANIMBUSHISTORYCONSUMER") else { return nil }
            var consumers: [String: Int64] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT ZNAME, ZTRANSACTION FROM ANIMBUSHISTORYCONSUMER") { consumers[row[0]] = row[1] }
            guard let oldest = consumers.values.min() else { return nil }
            return (consumers, try sourceStore.historyTransactions(after: oldest, db))
        }
        guard let unread else { return }
        let keys = destinationKeys()
        try destinationStore.database.write { db in
            try HistoryStore.prepare(db)
            // The migration's own transactions, renumbered after the carried ones below.
            let migration = try Int64.fetchAll(db, sql: "SELECT Z_PK FROM ATRANSACTION ORDER BY Z_PK")
            var carried: [(old: Int64, new: Int64)] = []
            for transaction in unread.transactions {
                let changes = transaction.changes?.compactMap { change in carriedChange(change, keys: keys) } ?? []
                guard let number = try HistoryStore.record(changes, author: transaction.author, contextName: transaction.contextName, db) else { continue }
                try db.execute(sql: "UPDATE ATRANSACTION SET ZTIMESTAMP = ? WHERE Z_PK = ?",
                               arguments: [transaction.timestamp.timeIntervalSinceReferenceDate, number])
                carried.append((transaction.transactionNumber, number))
            }
            for old in migration {
                let new = try HistoryStore.reserve(HistoryStore.transactionEntity, count: 1, db)
                try db.execute(sql: "UPDATE ATRANSACTION SET Z_PK = ? WHERE Z_PK = ?", arguments: [new, old])
                try db.execute(sql: "UPDATE ACHANGE SET ZTRANSACTIONID = ? WHERE ZTRANSACTIONID = ?", arguments: [new, old])
            }
            // A consumer stands after the carried transactions it had read: before the first
            // it had not.
            let start = (carried.first?.new ?? migration.first ?? 1) - 1
            for (name, position) in unread.consumers {
                let standing = carried.last { $0.old <= position }?.new ?? start
                try db.execute(sql: "INSERT OR REPLACE INTO ANIMBUSHISTORYCONSUMER (ZNAME, ZTRANSACTION) VALUES (?, ?)",
                               arguments: [name, standing])
            }
        }
    }

    /// The new store's object for each source object that one was made from (the first, as
    /// ``migratedKeys(previous:unread:)`` counts them).
    private func destinationKeys() -> [ManagedObjectID: ManagedObjectID] {
        var keys: [ManagedObjectID: ManagedObjectID] = [:]
        for mapping in mappingModel.entityMappings {
            for object in createdObjects(by: mapping) where !object.isDeleted && !object.objectID.isTemporaryID {
                guard let source = sourceObject(of: object), keys[source.objectID] == nil else { continue }
                keys[source.objectID] = object.objectID
            }
        }
        return keys
    }

    private func carriedChange(_ change: PersistentHistoryChange, keys: [ManagedObjectID: ManagedObjectID]) -> HistoryStore.Change? {
        guard let id = keys[change.changedObjectID] else { return nil }
        var carried = HistoryStore.Change(type: change.changeType, id: id)
        carried.columns = (change.updatedProperties ?? []).compactMap { id.entity.propertyIndexes[$0] }.sorted()
        carried.tombstone = (change.tombstone ?? [:]).filter { id.entity.attributesByName[$0.key] != nil }
        if change.changeType == .update && carried.columns.isEmpty { return nil }
        return carried
    }
}
