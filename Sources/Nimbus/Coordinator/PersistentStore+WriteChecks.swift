import Foundation
import GRDB

/// What a save writes to one store, as a write check sees it (see
/// ``PersistentStore/addWriteCheck(_:)``).
public struct StoreWrite: Sendable {
    /// The saving context's transaction author.
    public var author: String?
    /// Objects the save inserts (permanent IDs).
    public var inserted: [ManagedObjectID]
    /// Objects whose properties the save changes (to-many relationships included).
    public var updated: [ManagedObjectID]
    /// Objects the save deletes.
    public var deleted: [ManagedObjectID]
}

extension PersistentStore {
    /// Adds a check every later save of this store must pass. It runs in the save's
    /// transaction after the rows are written; throwing rolls the whole save back (nothing
    /// of it is written, in this store or any other the save touched) and the error reaches
    /// the caller of `save()`.
    ///
    /// Mirroring uses it to refuse edits of objects in a read-only share before they are
    /// sent. For example:
    /// ```swift
    /// store.addWriteCheck { write, db in
    ///     if write.author != "importer", !write.deleted.isEmpty {
    ///         throw NimbusError(.readOnlyStore, "objects of this store are not deleted here")
    ///     }
    /// }
    /// ```
    /// - Parameter check: Called with what the save writes and the store's database.
    public func addWriteCheck(_ check: @escaping @Sendable (StoreWrite, Database) throws -> Void) {
        addSaveHook(WriteCheckHook(check: check))
    }
}

/// A write check run as a save hook.
private struct WriteCheckHook: SaveHook {
    let check: @Sendable (StoreWrite, Database) throws -> Void

    func didWrite(_ request: SaveRequest, result: SaveResult, database: SQLiteDatabase, _ db: Database) throws {
        let write = StoreWrite(author: request.author, inserted: result.insertedIDs,
                               updated: request.updates.map(\.id), deleted: request.deletes.map(\.id))
        try check(write, db)
    }
}
