import Foundation
import Synchronization

/// Connects contexts to stores: adds and removes stores, routes fetches and saves, and
/// keeps the row cache the contexts share.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
/// try coordinator.addPersistentStore(with: PersistentStoreDescription(url: storeURL))
/// let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
/// ```
public final class PersistentStoreCoordinator: Sendable {
    /// The model of every store of the coordinator.
    public let managedObjectModel: ManagedObjectModel
    let rowCache = RowCache()
    private let state = Mutex<State>(State())

    private struct State {
        var stores: [PersistentStore] = []
        var mergeObservers: [ObjectIdentifier: WeakContext] = [:]
    }

    struct WeakContext: @unchecked Sendable {
        weak var context: ManagedObjectContext?
    }

    /// Creates a coordinator for a model.
    public init(managedObjectModel: ManagedObjectModel) {
        self.managedObjectModel = managedObjectModel
    }

    /// The stores added so far, in order.
    public var persistentStores: [PersistentStore] { state.withLock { $0.stores } }

    /// Adds a store: opens (or creates) it and checks it matches the model.
    ///
    /// - Throws: ``NimbusError`` with ``NimbusError/Code-swift.struct/notADatabase``,
    ///   ``NimbusError/Code-swift.struct/corruptStore``,
    ///   ``NimbusError/Code-swift.struct/modelMismatch``,
    ///   ``NimbusError/Code-swift.struct/storeAlreadyAdded`` and others; the file is left
    ///   as it was.
    @discardableResult
    public func addPersistentStore(with givenDescription: PersistentStoreDescription) throws -> PersistentStore {
        try addPersistentStore(with: givenDescription, posting: true)
    }

    func addPersistentStore(with givenDescription: PersistentStoreDescription, posting: Bool) throws -> PersistentStore {
        let store = try openStore(with: givenDescription)
        do {
            try state.withLock { state in
                if state.stores.contains(where: { $0.identifier == store.identifier }) {
                    throw NimbusError(.storeAlreadyAdded, "the store \(store.identifier) is already added")
                }
                state.stores.append(store)
            }
        } catch {
            store.database.close()
            throw error
        }
        watchRemoteChanges(of: store)
        if posting { postStoresDidChange(added: [store], removed: []) }
        return store
    }

    /// Opens the store a description names, not yet added.
    private func openStore(with givenDescription: PersistentStoreDescription) throws -> PersistentStore {
        let (resolved, warnings) = try givenDescription.resolvingOptions()
        StoreOptionWarning.reportOnce(warnings, to: StoreOptionWarning.logger)
        var description = resolved
        if description.configuration == nil, description.type == .sqlite, let url = description.url,
           let existing = try StoreInspector.inspect(path: url.path) {
            description.configuration = existing.storedConfiguration(model: managedObjectModel, path: url.path)
        }
        if let url = description.url, description.type == .sqlite, persistentStore(for: url) != nil {
            throw NimbusError(.storeAlreadyAdded, "a store at \(url.path) is already added")
        }
        if let plan = description.stagedMigrationPlan, let url = description.url, description.type == .sqlite,
           !description.isReadOnly, FileManager.default.fileExists(atPath: url.path) {
            try plan.migrateStore(at: url)
        }
        let database = try SQLiteDatabase.open(description, model: managedObjectModel)
        let store = PersistentStore(description: description, model: managedObjectModel, database: database,
                                    identifier: database.identifier)
        if description.persistentHistoryTracking {
            if !description.isReadOnly {
                try database.write { db in
                    try HistoryStore.prepare(db)
                    try HistoryStore.markTracking(db)
                }
            }
            store.addSaveHook(HistoryRecorder())
        }
        return store
    }

    /// Removes `old` and adds the stores `descriptions` name in one step: every fetch and
    /// save sees either the old stores or the new ones, never both and never neither (an
    /// account switch swaps its stores so). The new stores are opened first; if one fails to
    /// open, nothing changes.
    ///
    /// For example:
    /// ```swift
    /// let added = try coordinator.swapPersistentStores(removing: [localStore], adding: [accountDescription])
    /// ```
    /// - Throws: ``NimbusError`` with ``NimbusError/Code-swift.struct/storeNotFound`` when a
    ///   store of `old` is not added, and the errors of `addPersistentStore(with:)`.
    @discardableResult
    public func swapPersistentStores(removing old: [PersistentStore], adding descriptions: [PersistentStoreDescription]) throws -> [PersistentStore] {
        var opened: [PersistentStore] = []
        do {
            for description in descriptions { opened.append(try openStore(with: description)) }
            postStoresWillChange(old)
            try state.withLock { state in
                for store in old where !state.stores.contains(where: { $0 === store }) {
                    throw NimbusError(.storeNotFound, "the store \(store.identifier) is not in this coordinator")
                }
                let remaining = state.stores.filter { store in !old.contains { $0 === store } }
                for store in opened where remaining.contains(where: { $0.identifier == store.identifier }) {
                    throw NimbusError(.storeAlreadyAdded, "the store \(store.identifier) is already added")
                }
                state.stores = remaining + opened
            }
        } catch {
            for store in opened { store.database.close() }
            throw error
        }
        rowCache.removeAll()
        for store in old { store.database.close() }
        for store in opened { watchRemoteChanges(of: store) }
        postStoresDidChange(added: opened, removed: old)
        return opened
    }

    /// Adds a store without blocking the caller.
    public func addPersistentStore(with description: PersistentStoreDescription) async throws -> PersistentStore {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try self.addPersistentStore(with: description) })
            }
        }
    }

    /// Removes a store; its objects can no longer be fetched or saved.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/storeNotFound`` when it is not added.
    public func removePersistentStore(_ store: PersistentStore) throws {
        try removePersistentStore(store, posting: true)
    }

    func removePersistentStore(_ store: PersistentStore, posting: Bool) throws {
        guard persistentStores.contains(where: { $0 === store }) else {
            throw NimbusError(.storeNotFound, "the store \(store.identifier) is not in this coordinator")
        }
        if posting { postStoresWillChange([store]) }
        defer { if posting { postStoresDidChange(added: [], removed: [store]) } }
        try state.withLock { state in
            guard let index = state.stores.firstIndex(where: { $0 === store }) else {
                throw NimbusError(.storeNotFound, "the store \(store.identifier) is not in this coordinator")
            }
            state.stores.remove(at: index)
        }
        rowCache.removeAll()
        store.database.close()
    }

    /// The metadata of the store at a URL, read without opening it for writing:
    /// `NSStoreType`, `NSStoreUUID`, `NSStoreModelVersionHashes`, and
    /// `NSPersistentHistoryTrackingKey` when the store tracks history.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/storeNotFound`` and the errors of opening a store.
    public static func metadataForPersistentStore(at url: URL) throws -> [String: Any] {
        guard let inspector = try StoreInspector.inspect(path: url.path) else {
            throw NimbusError(.storeNotFound, "no store at \(url.path)")
        }
        return inspector.metadata.dictionary
    }

    /// The store at a URL, if added.
    public func persistentStore(for url: URL) -> PersistentStore? {
        let path = url.standardizedFileURL.path
        return persistentStores.first { $0.url?.standardizedFileURL.path == path }
    }

    /// The store with an identifier, if added.
    public func persistentStore(identifier: String) -> PersistentStore? {
        persistentStores.first { $0.identifier == identifier }
    }

    /// The object ID a URI names (`x-coredata://<store>/<Entity>/p<key>`), or nil when the
    /// URI is malformed, or its store or entity is unknown.
    public func managedObjectID(forURIRepresentation url: URL) -> ManagedObjectID? {
        guard let uri = ObjectURI(url), let store = persistentStore(identifier: uri.storeIdentifier),
              let entity = managedObjectModel.entitiesByName[uri.entityName], store.holds(entity) else { return nil }
        return ManagedObjectID(entity: entity, storeIdentifier: store.identifier, primaryKey: uri.primaryKey)
    }

    // MARK: Routing

    /// The store of an object ID.
    func store(for id: ManagedObjectID) throws -> PersistentStore {
        if let store = persistentStores.first(where: { $0.database.storeKey == id.storeKey }) { return store }
        throw NimbusError(.invalidObjectID, "\(id) belongs to no store of this coordinator")
    }

    /// The stores that hold an entity.
    func stores(for entity: EntityDescription) throws -> [PersistentStore] {
        let stores = persistentStores
        guard !stores.isEmpty else { throw NimbusError(.noStores, "the coordinator has no persistent stores; add one first") }
        return stores.filter { $0.holds(entity) }
    }

    /// The store a new object of an entity goes to: the first that holds the entity.
    func defaultStore(for entity: EntityDescription) throws -> PersistentStore {
        guard let store = try stores(for: entity).first else {
            throw NimbusError(.noStores, "no store holds entity \(entity.name)")
        }
        return store
    }

    func snapshot(for id: ManagedObjectID, context: ManagedObjectContext) throws -> RowSnapshot? {
        let pinned = context.isPinned
        if !pinned, let cached = rowCache.snapshot(for: id, maximumAge: context.stalenessInterval) { return cached }
        let store = try store(for: id)
        guard let snapshot = try context.read(store, { db in try store.database.snapshot(for: id, db) }) else { return nil }
        if !pinned { rowCache.store(snapshot, for: id) }
        return snapshot
    }

    func destinations(of id: ManagedObjectID, relationshipIndex index: Int, context: ManagedObjectContext) throws -> [ManagedObjectID] {
        let store = try store(for: id)
        return try context.read(store) { db in try store.database.destinations(of: id, relationshipIndex: index, db) }
    }

    func obtainPermanentIDs(for ids: [ManagedObjectID]) throws -> [ManagedObjectID] {
        var result: [ManagedObjectID: ManagedObjectID] = [:]
        var byStore: [String: (PersistentStore, [ManagedObjectID])] = [:]
        for id in ids {
            let store = try defaultStore(for: id.entity)
            byStore[store.identifier, default: (store, [])].1.append(id)
        }
        for (store, group) in byStore.values {
            guard !store.isReadOnly else { throw NimbusError(.readOnlyStore, "the store \(store.identifier) is read-only") }
            for (old, new) in zip(group, try store.database.obtainPermanentIDs(for: group)) { result[old] = new }
        }
        return ids.map { result[$0]! }
    }

    // MARK: Merging

    /// Whether any context merges saves automatically.
    var hasMergeObservers: Bool { state.withLock { !$0.mergeObservers.isEmpty } }

    func setMergeObserver(_ context: ManagedObjectContext, enabled: Bool) {
        state.withLock { state in
            if enabled { state.mergeObservers[ObjectIdentifier(context)] = WeakContext(context: context) }
            else { state.mergeObservers[ObjectIdentifier(context)] = nil }
        }
    }

    /// Tells contexts that merge automatically about a save.
    func didSave(_ changes: SaveNotification, from source: ManagedObjectContext) {
        let observers = state.withLock { $0.mergeObservers.values.compactMap(\.context) }
        for context in observers where context !== source {
            context.perform { context.mergeChanges(fromContextDidSave: changes) }
        }
        NotificationCenter.default.post(name: ManagedObjectContext.didSaveObjectIDsNotification, object: source,
                                        userInfo: [SaveNotification.userInfoKey: changes])
    }
}
