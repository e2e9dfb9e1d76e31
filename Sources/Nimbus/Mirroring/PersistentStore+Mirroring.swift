import Foundation
import GRDB

// What a sync layer (NimbusCloud) needs from a store: transactions on the store file for
// its own metadata tables, the store's history, and object IDs from keys. `package` access:
// apps don't see it, and the object graph never knows the cloud exists.

extension PersistentStore {
    /// Runs `work` in one write transaction on the store file (sync metadata lives beside
    /// the data and commits with it).
    package func writeTransaction<T>(_ work: (Database) throws -> T) throws -> T {
        try database.write(work)
    }

    /// Runs `work` in one read transaction on the store file.
    package func readTransaction<T>(_ work: (Database) throws -> T) throws -> T {
        try database.read(work)
    }

    /// The store's history transactions (with their changes) after transaction `number`,
    /// in order.
    package func historyTransactions(after number: Int64, _ db: Database) throws -> [PersistentHistoryTransaction] {
        let request = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
        return try database.fetchHistory(request, after: .transaction(number), db).transactions
    }

    /// The number of the store's newest history transaction (0 when there is none).
    package func lastHistoryTransaction(_ db: Database) throws -> Int64 {
        try HistoryStore.lastTransaction(db)
    }

    /// Registers a history consumer at `transaction`, so that purges never pass it.
    package func setHistoryConsumer(_ name: String, at transaction: Int64, _ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO ANIMBUSHISTORYCONSUMER (ZNAME, ZTRANSACTION) VALUES (?, ?)",
                       arguments: [name, transaction])
    }

    /// The permanent ID of the row `primaryKey` of `entity` in this store.
    package func objectID(for entity: EntityDescription, primaryKey: Int64) -> ManagedObjectID {
        ManagedObjectID(entity: entity, storeKey: database.storeKey, primaryKey: primaryKey)
    }

    /// The entity whose number is `number` in this store's model.
    package func entity(number: Int) -> EntityDescription? {
        model.entity(number: number)
    }

    /// Whether the row of `id` still exists in the store file (read in `db`).
    package func rowExists(_ id: ManagedObjectID, _ db: Database) throws -> Bool {
        let table = database.schema.mapping(for: id.entity).table
        return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(table.quotedDatabaseIdentifier) WHERE Z_PK = ?)",
                                 arguments: [id.primaryKey]) ?? false
    }
}

/// Work a sync layer runs inside a context's save transaction, after the rows and history
/// are written: it gets the database and the permanent IDs of the inserted objects.
struct TransactionWorkHook: SaveHook {
    let work: @Sendable (Database, [ManagedObjectID: ManagedObjectID]) throws -> Void

    func didWrite(_ request: SaveRequest, result: SaveResult, database: SQLiteDatabase, _ db: Database) throws {
        var permanent: [ManagedObjectID: ManagedObjectID] = [:]
        for (insert, id) in zip(request.inserts, result.insertedIDs) { permanent[insert.id] = id }
        try work(db, permanent)
    }
}

extension ManagedObjectContext {
    /// Saves like ``save()``, and runs `work` inside the transaction that writes `store`
    /// (after its rows and history), so metadata commits with the data or not at all.
    ///
    /// When the save writes nothing to `store`, `work` runs in a write transaction of its own.
    /// A throw from `work` rolls the whole save back and reaches the caller.
    package func save(in store: PersistentStore,
                      transactionWork work: @escaping @Sendable (Database, [ManagedObjectID: ManagedObjectID]) throws -> Void) throws {
        let ran = RanFlag()
        pendingTransactionWork = (store, TransactionWorkHook { db, ids in
            ran.value = true
            try work(db, ids)
        })
        defer { pendingTransactionWork = nil }
        // New objects go to `store` (another store of the coordinator may hold the same
        // entities: a private and a shared store).
        for object in insertedObjects where object.objectID.isTemporaryID && assignedStores[object.objectID] == nil && store.holds(object.entity) {
            assign(object, to: store)
        }
        try save()
        if !ran.value {
            try store.writeTransaction { db in try work(db, [:]) }
        }
    }
}

/// Set inside a save transaction (which runs on the calling thread).
private final class RanFlag: @unchecked Sendable {
    var value = false
}

extension PersistentStore {
    /// The objects a to-many relationship of `id` holds, read from its join table (or the
    /// destination's foreign key) in `db`.
    package func destinations(of id: ManagedObjectID, relationship name: String, _ db: Database) throws -> [ManagedObjectID] {
        guard let index = id.entity.propertyIndexes[name],
              let destination = model.entitiesByName[id.entity.properties[index].relationship?.destinationEntityName ?? ""] else {
            throw NimbusError(.unknownProperty, "\(id.entity.name) has no relationship \(name)")
        }
        let table = database.schema.mapping(for: destination).table.quotedDatabaseIdentifier
        let sql: String
        switch database.schema.mapping(for: id.entity).storage[index] {
        case let .joinTable(join, source, target, _):
            sql = "SELECT d.Z_PK, d.Z_ENT FROM \(join.name.quotedDatabaseIdentifier) j JOIN \(table) d ON d.Z_PK = j.\(target.quotedDatabaseIdentifier) WHERE j.\(source.quotedDatabaseIdentifier) = ?"
        case let .inverseForeignKey(inverseTable, column, _, _):
            sql = "SELECT Z_PK, Z_ENT FROM \(inverseTable.quotedDatabaseIdentifier) WHERE \(column.quotedDatabaseIdentifier) = ?"
        default:
            throw NimbusError(.unknownProperty, "\(id.entity.name).\(name) is not a stored to-many relationship")
        }
        var result: [ManagedObjectID] = []
        let rows = try Row.fetchCursor(db, sql: sql, arguments: [id.primaryKey])
        while let row = try rows.next() {
            guard let entity = model.entity(number: row[1]) else { continue }
            result.append(objectID(for: entity, primaryKey: row[0]))
        }
        return result
    }
}

extension PersistentStore {
    /// Every object stored in the table of `entity`'s inheritance hierarchy, read in `db`.
    package func allObjectIDs(inHierarchyOf entity: EntityDescription, _ db: Database) throws -> [ManagedObjectID] {
        let table = database.schema.mapping(for: entity.rootEntity).table.quotedDatabaseIdentifier
        var result: [ManagedObjectID] = []
        let rows = try Row.fetchCursor(db, sql: "SELECT Z_PK, Z_ENT FROM \(table) ORDER BY Z_PK")
        while let row = try rows.next() {
            guard let entity = model.entity(number: row[1]) else { continue }
            result.append(objectID(for: entity, primaryKey: row[0]))
        }
        return result
    }
}
