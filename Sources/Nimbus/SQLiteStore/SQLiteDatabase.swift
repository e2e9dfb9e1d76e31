import Foundation
import GRDB

/// A store's SQLite database: a GRDB `DatabasePool` in WAL mode (many readers, one
/// writer), or a `DatabaseQueue` for in-memory, read-only and rollback-journal stores.
final class SQLiteDatabase: @unchecked Sendable {
    let writer: any DatabaseWriter
    let model: ManagedObjectModel
    let schema: StoreSchema
    let identifier: String
    /// The identifier as the small number object IDs carry.
    let storeKey: UInt32
    let readers: [EntityReader]
    let insertPlans: [InsertPlan]
    /// Statements seen, when recording is on (for tests that assert the SQL sent).
    let recorder: SQLRecorder?
    /// R-trees the model declares that this file lacks (a read-only store written before
    /// they were declared); fetches do not route through them.
    private(set) var unavailableRTrees: Set<String> = []
    /// Where values of attributes that allow external storage go when large
    /// (`.<store>_SUPPORT/_EXTERNAL_DATA`); nil for in-memory stores, which keep them inline.
    let externalDataFolder: URL?
    /// By entity number - 1: the attributes that allow external storage.
    let externalIndexes: [[Int]]
    /// Whether any entity has such attributes and the store keeps files (checked per save).
    let usesExternalStorage: Bool
    /// The write transaction a ``SharedTransaction`` holds open on this store, if any.
    let joined = JoinedTransaction()
    /// Primary keys reserved ahead for small saves.
    let keyReservations = KeyReservations()
    /// Every access passes it, so closing waits for running ones (see ``close()``).
    let gate = StoreAccessGate()
    /// The temporary folder holding the copy a read-only Apple store is read from (when its
    /// `-wal` held pages; decision 0121), removed on close.
    private(set) var temporaryCopy: URL?
    /// Whether Apple's Core Data wrote the store (its history is read without the parts
    /// whose encoding is Apple's own).
    private(set) var isCoreDataStore = false

    private init(writer: any DatabaseWriter, model: ManagedObjectModel, identifier: String, recorder: SQLRecorder?,
                 externalDataFolder: URL? = nil) {
        self.writer = writer
        self.model = model
        self.schema = model.schema
        self.identifier = identifier
        self.storeKey = StoreKeys.key(for: identifier)
        self.externalDataFolder = externalDataFolder
        self.externalIndexes = model.entities.map(ExternalStorage.indexes(of:))
        self.usesExternalStorage = externalDataFolder != nil && externalIndexes.contains { !$0.isEmpty }
        self.readers = model.entities.map { EntityReader(entity: $0, schema: model.schema, externalDataFolder: externalDataFolder) }
        self.insertPlans = model.entities.map { InsertPlan(entity: $0, schema: model.schema) }
        self.recorder = recorder
    }

    /// Opens (creating when new) the database a description names.
    ///
    /// A file that exists is inspected read-only first, so a file that is not a store, or a
    /// store of another model, is left exactly as it was.
    static func open(_ description: PersistentStoreDescription, model givenModel: ManagedObjectModel?) throws -> SQLiteDatabase {
        let recorder = description.options["recordSQL"] == "1" ? SQLRecorder() : nil
        var configuration = StoreConnection.configuration(timeout: description.timeout)
        configuration.foreignKeysEnabled = false
        configuration.prepareDatabase { db in
            SQLDebug.install(on: db)
            if let recorder { recorder.install(on: db) }
            try SQLFunctions.register(on: db)
        }

        if description.type == .inMemory {
            guard let model = givenModel else {
                throw NimbusError(.invalidArgument, "an in-memory store needs a model")
            }
            let queue = try DatabaseQueue(configuration: configuration)
            let identifier = UUID().uuidString
            try queue.write { db in try StoreSchemaWriter.create(db, model: model, description: description, identifier: identifier) }
            return SQLiteDatabase(writer: queue, model: model, identifier: identifier, recorder: recorder)
        }

        guard let url = description.url else {
            throw NimbusError(.invalidArgument, "a SQLite store needs a URL")
        }
        let path = url.path
        let existing = try StoreInspector.inspect(path: path)
        if existing == nil, description.isReadOnly {
            throw NimbusError(.storeNotFound, "no store at \(path) to open read-only")
        }
        let model: ManagedObjectModel
        var layout = StoreLayout()
        var openPath = path
        var copyFolder: URL?
        if let existing, existing.metadata.isWrittenByCoreData {
            // Apple's Core Data wrote it: compatible by schema (decision 0120), read-only
            // without changing a byte (decision 0121).
            guard let givenModel else {
                throw NimbusError(.modelMismatch, "the store at \(path) was written by Apple's Core Data (framework version \(existing.metadata.frameworkVersion ?? "unknown")) and keeps its model in Apple's encoding; open it with the app's model (nimbus store commands: --model)")
            }
            // Checked without touching the file, whether it is then opened read-write or not.
            let target = try UntouchedOpening.target(for: path)
            copyFolder = target.copyFolder
            do {
                layout = try StoreLayout.read(path: target.path, model: givenModel, configuration: description.configuration, reportingAs: path)
            } catch {
                if let copyFolder { try? FileManager.default.removeItem(at: copyFolder) }
                throw error
            }
            if !description.isReadOnly, let folder = copyFolder {
                try? FileManager.default.removeItem(at: folder)
                copyFolder = nil
            }
            if !description.isReadOnly && !layout.isExact {
                throw NimbusError(.modelMismatch, "the store at \(path) was written by Apple's Core Data, which named some tables or columns otherwise than Nimbus would (\(layout.summary)); open it read-only, or copy it into a Nimbus store with `nimbus store import-coredata`")
            }
            if description.isReadOnly { openPath = target.path }
            model = givenModel
        } else if let existing {
            // A store written before Nimbus took Core Data's names gets them (decision 0120).
            if !description.isReadOnly, let stored = try? existing.storedModel(path: path) {
                try StoreLayout.upgrade(path: path, model: stored, configuration: description.configuration, timeout: description.timeout)
            }
            if let givenModel {
                do {
                    try existing.check(compatibleWith: givenModel, configuration: description.configuration, path: path)
                } catch let mismatch as NimbusError where mismatch.code == .modelMismatch && description.shouldMigrateStoreAutomatically
                    && description.shouldInferMappingModelAutomatically && !description.isReadOnly {
                    try migrate(path: path, existing: existing, to: givenModel, description: description, mismatch: mismatch)
                }
                model = givenModel
            } else {
                model = try existing.storedModel(path: path)
            }
        } else {
            guard let givenModel else { throw NimbusError(.storeNotFound, "no store at \(path) and no model to create one") }
            model = givenModel
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        }

        if let existing, !existing.metadata.isWrittenByCoreData, description.isReadOnly {
            layout = try StoreLayout.read(path: path, model: model, configuration: description.configuration, reportingAs: nil)
        }
        if !layout.isExact {
            let statements = layout.viewStatements
            configuration.prepareDatabase { db in for sql in statements { try db.execute(sql: sql) } }
        }
        configuration.readonly = description.isReadOnly
        let writer: any DatabaseWriter
        do {
            if description.journalMode == .wal && !description.isReadOnly && description.maximumConnectionPoolSize > 1 {
                configuration.maximumReaderCount = description.maximumConnectionPoolSize
                writer = try DatabasePool(path: openPath, configuration: configuration)
            } else if description.journalMode == .wal && !description.isReadOnly {
                // A pool of one: every request, read or write, goes through one connection in turn.
                configuration.journalMode = .wal
                writer = try DatabaseQueue(path: openPath, configuration: configuration)
            } else {
                if !description.isReadOnly {
                    configuration.journalMode = .default
                    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
                }
                writer = try DatabaseQueue(path: openPath, configuration: configuration)
            }
        } catch let error as DatabaseError {
            throw NimbusError.from(error, path: path)
        }
        let identifier: String
        var unavailableRTrees: Set<String> = []
        if let existing {
            identifier = existing.identifier
            if description.isReadOnly {
                unavailableRTrees = try writer.read { db in try StoreIndexReconciler.missingRTrees(db, schema: model.schema) }
            } else if givenModel != nil {
                unavailableRTrees = try updateIndexesAndModelCache(writer, model: model, path: path)
            }
        } else {
            identifier = UUID().uuidString
            try writer.write { db in try StoreSchemaWriter.create(db, model: model, description: description, identifier: identifier) }
        }
        let database = SQLiteDatabase(writer: writer, model: model, identifier: identifier, recorder: recorder,
                                      externalDataFolder: ExternalStorage.dataFolder(for: url))
        database.unavailableRTrees = unavailableRTrees
        database.temporaryCopy = copyFolder
        database.isCoreDataStore = existing?.metadata.isWrittenByCoreData ?? false
        return database
    }

    /// Creates, changes and drops indexes and R-trees to match the model, and stores the
    /// model in `Z_MODELCACHE` when it differs from the cached one (index declarations and
    /// search settings leave the version hash alone), so tools that open the store alone
    /// see the same indexes. Reads first; writes only when something differs.
    ///
    /// A store whose cache is not Nimbus's JSON (one written by Apple's Core Data) is left
    /// alone; the R-trees it lacks are returned, and fetches do not use them.
    private static func updateIndexesAndModelCache(_ writer: any DatabaseWriter, model: ManagedObjectModel, path: String) throws -> Set<String> {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let encoded = try encoder.encode(model)
        do {
            let (plan, cached, missing) = try writer.read { db in
                (try StoreIndexReconciler.plan(db, schema: model.schema),
                 try db.tableExists("Z_MODELCACHE") ? try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1") : nil,
                 try StoreIndexReconciler.missingRTrees(db, schema: model.schema))
            }
            guard cached?.first == UInt8(ascii: "{") else { return missing }
            guard !plan.isEmpty || cached != encoded else { return [] }
            try writer.write { db in
                try StoreIndexReconciler.apply(db, schema: model.schema)
                try db.execute(sql: "DELETE FROM Z_MODELCACHE")
                try db.execute(sql: "INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", arguments: [encoded])
            }
            return []
        } catch let error as DatabaseError {
            throw NimbusError.from(error, path: path)
        }
    }

    /// Runs an inferred lightweight migration in one transaction; on failure the store is
    /// unchanged and the error names both the differences and why they cannot be inferred.
    private static func migrate(path: String, existing: StoreInspector, to model: ManagedObjectModel,
                                description: PersistentStoreDescription, mismatch: NimbusError) throws {
        let source: ManagedObjectModel
        do { source = try existing.storedModel(path: path) } catch { throw mismatch }
        var configuration = StoreConnection.configuration(timeout: description.timeout)
        configuration.prepareDatabase { db in try SQLFunctions.register(on: db) }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            try queue.write { db in
                try LightweightMigration.migrate(db, from: source, to: model, identifier: existing.identifier, description: description)
            }
        } catch let error as NimbusError {
            // The cause first; the differences that called for the migration after it.
            throw NimbusError(.modelMismatch, error.message + " (" + mismatch.message + ")", underlying: error)
        } catch let error as DatabaseError {
            throw NimbusError.from(error, path: path)
        }
    }

    /// The reader of an entity's rows.
    func reader(for entity: EntityDescription) -> EntityReader { readers[entity.entityNumber - 1] }

    /// Reads the metadata dictionary.
    func readMetadata() throws -> [String: Any] {
        try gate.pass(identifier) { try writer.read { db in try StoreMetadata.read(db)?.dictionary ?? [:] } }
    }

    /// Runs a read, mapping SQLite errors to Nimbus errors.
    func read<T>(_ block: (Database) throws -> T) throws -> T {
        try gate.enter(identifier)
        defer { gate.leave() }
        do { return try writer.read(block) } catch let error as DatabaseError { throw NimbusError.from(error, path: nil) }
    }

    /// Runs reads that are each one statement (consistent by itself) without wrapping them in
    /// a transaction: the cheap path for fetches and faults.
    func readStatement<T>(_ block: (Database) throws -> T) throws -> T {
        try gate.enter(identifier)
        defer { gate.leave() }
        do { return try writer.unsafeReentrantRead(block) } catch let error as DatabaseError { throw NimbusError.from(error, path: nil) }
    }

    /// Runs a write transaction, mapping SQLite errors to Nimbus errors. Inside a
    /// ``SharedTransaction`` that holds this store, the block joins its transaction.
    func write<T>(_ block: (Database) throws -> T) throws -> T {
        try gate.enter(identifier)
        defer { gate.leave() }
        if let db = joined.current {
            do { return try block(db) } catch let error as DatabaseError {
                throw constraintConflict(error) ?? NimbusError.from(error, path: nil)
            }
        }
        do { return try writer.writeWithoutTransaction { db in try db.inWriteTransaction(block) } } catch let error as DatabaseError {
            throw constraintConflict(error) ?? NimbusError.from(error, path: nil)
        }
    }
}

extension SQLiteDatabase {
    /// Closes the store's connections once no access is running; accesses after that throw
    /// ``NimbusError/Code-swift.struct/storeNotFound``. When an access is still running after a
    /// while (one that never ends, or the caller's own), the connections are left to close when
    /// the last reference to them goes, rather than closed under it.
    func close() {
        guard gate.close(waitingUpTo: .seconds(2)) else { return }
        try? writer.close()
        if let temporaryCopy { try? FileManager.default.removeItem(at: temporaryCopy) }
    }
}

extension NimbusError {
    static func from(_ error: DatabaseError, path: String?) -> NimbusError {
        let place = path.map { " at \($0)" } ?? ""
        switch error.resultCode {
        case .SQLITE_NOTADB:
            return NimbusError(.notADatabase, "the file\(place) is not a SQLite database", underlying: error)
        case .SQLITE_CORRUPT:
            return NimbusError(.corruptStore, "the database\(place) is corrupt", underlying: error)
        case .SQLITE_READONLY:
            // The extended code tells a read-only file from a moved one or a WAL that needs
            // recovery (SQLITE_READONLY_DBMOVED, _RECOVERY, _CANTINIT).
            let detail = error.extendedResultCode == error.resultCode ? "" : " (\(error.extendedResultCode))"
            return NimbusError(.readOnlyStore, "the store\(place) is read-only\(detail)", underlying: error)
        case .SQLITE_CANTOPEN:
            return NimbusError(.io, "cannot open the database\(place)", underlying: error)
        case .SQLITE_MISMATCH:
            return NimbusError(.typeMismatch, error.message ?? "a value has the wrong type for its column\(place)", underlying: error)
        default:
            return NimbusError(.sqliteError, "SQLite error\(place): \(error.message ?? error.description)", underlying: error)
        }
    }
}
