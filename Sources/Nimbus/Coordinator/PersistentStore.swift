import Foundation
import GRDB
import Synchronization

/// A store added to a coordinator: a SQLite file or an in-memory database.
///
/// Stores are created by `PersistentStoreCoordinator/addPersistentStore(with:)`.
public final class PersistentStore: @unchecked Sendable {
    /// The store's identifier, a UUID string kept in the file's metadata.
    public let identifier: String
    /// The description the store was added with.
    public let storeDescription: PersistentStoreDescription
    /// The model configuration whose entities the store holds (nil: all).
    public var configurationName: String? { storeDescription.configuration }
    /// The store's location.
    public var url: URL? { storeDescription.url }
    /// The kind of store.
    public var type: PersistentStoreDescription.StoreType { storeDescription.type }
    /// Whether the store refuses writes.
    public var isReadOnly: Bool { storeDescription.isReadOnly }
    /// The entities the store holds.
    public let entities: [EntityDescription]

    let database: SQLiteDatabase
    let model: ManagedObjectModel
    /// Work done in every save's transaction (persistent history, sync metadata).
    var saveHooks: [any SaveHook] { hooks.withLock { $0 } }
    private let hooks = Mutex<[any SaveHook]>([])

    /// Adds work to every save's transaction.
    func addSaveHook(_ hook: any SaveHook) { hooks.withLock { $0.append(hook) } }

    init(description: PersistentStoreDescription, model: ManagedObjectModel, database: SQLiteDatabase, identifier: String) {
        self.storeDescription = description
        self.model = model
        self.database = database
        self.identifier = identifier
        self.entities = model.entities(forConfiguration: description.configuration)
    }

    /// The SQL statements recorded when the store was added with option `recordSQL = "1"`.
    package var recordedStatements: [String]? { database.recorder?.recorded }

    /// Forgets the recorded statements.
    package func resetRecordedStatements() { database.recorder?.reset() }

    /// Facts about the store's file, for tools.
    public struct Inspection: Sendable {
        /// SQLite's journal mode (`wal`, `delete`, `memory`).
        public var journalMode: String
        /// Pages in use and page size, in bytes.
        public var fileSize: Int
    }

    /// Reads the store's journal mode and size.
    public func inspection() throws -> Inspection {
        try database.read { db in
            var mode = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "unknown"
            // A file read without touching it (decision 0121) reports no journal: its header says.
            if database.temporaryCopy != nil || mode == "delete", let path = url?.path, UntouchedOpening.isWAL(path) { mode = "wal" }
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let size = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0
            return Inspection(journalMode: mode, fileSize: pages * size)
        }
    }

    /// Whether the store holds objects of an entity.
    public func holds(_ entity: EntityDescription) -> Bool {
        entities.contains { $0 === entity }
    }

    /// The store's metadata: store type, UUID, model version hashes and identifiers.
    public var metadata: [String: Any] {
        (try? database.readMetadata()) ?? [:]
    }
}
