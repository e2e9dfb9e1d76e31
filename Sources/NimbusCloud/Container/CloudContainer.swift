import Foundation
import Logging
import Nimbus
import NimbusWire
import Synchronization

/// A persistent container that mirrors its cloud stores through a Nimbus sync server, as
/// `NSPersistentCloudKitContainer` mirrors to CloudKit.
///
/// Stores whose description has ``CloudContainerOptions`` mirror; the others stay local (the
/// seeds' Cloud + Local configurations in one container). Persistent history is switched on
/// for mirrored stores; `viewContext` merges imports by itself.
///
/// For example:
/// ```swift
/// let container = CloudContainer(name: "Posts", managedObjectModel: model)
/// var cloud = PersistentStoreDescription(url: cloudURL)
/// cloud.configuration = "Cloud"
/// cloud.cloudContainerOptions = CloudContainerOptions(serverURL: server, containerIdentifier: "posts", token: token)
/// var local = PersistentStoreDescription(url: localURL)
/// local.configuration = "Local"
/// container.persistentStoreDescriptions = [cloud, local]
/// try container.loadPersistentStores()
/// try await container.syncNow()
/// ```
open class CloudContainer: PersistentContainer, @unchecked Sendable {
    /// Whether mirroring runs by itself (after saves, on push, at launch). When false, only
    /// ``syncNow()`` syncs (scripts and tests drive it).
    public var automaticallySyncs = true
    /// Who is signed in. With a provider, each mirrored store description names one store
    /// URL, and the container keeps a store per account plus a local store for "no account",
    /// swapping them as the account changes (see ``switchAccount(to:)``).
    public var accountProvider: (any AccountProvider)?
    /// Whether loading returns at once on the local store and swaps in the account's store
    /// when it is ready (as Core Data's iCloud stores did); when false the account's store is
    /// loaded directly.
    public var setsUpAccountStoresAsynchronously = true
    /// Whether the local store is read-only while no account is signed in.
    public var isReadOnlyWithoutAccount = false
    /// How old persistent history must be before the mirroring purges it, once every
    /// registered history consumer (the mirroring, and readers registered with
    /// `setHistoryToken(_:forConsumer:)`) has read it: 7 days by default, `nil` to never purge (decision
    /// 0071). Set it before loading the stores.
    public var historyRetention: TimeInterval? = 7 * 24 * 3600
    /// The author of the transactions that imports write (they are never exported back).
    public static let importAuthor = "NimbusCloud.import"

    private let state = Mutex<State>(State())
    private struct State {
        var engines: [MirrorEngine] = []
        var subscribers: [UUID: AsyncStream<CloudEvent>.Continuation] = [:]
        var resolvers: [String: ConflictResolver] = [:]
        var accounts = AccountState()
    }

    /// The account state as it is now (read-only: change it with ``updateAccountState(_:)``).
    var accountState: AccountState { state.withLock { $0.accounts } }

    /// Changes the account state in one step under the container's lock: a read and a write
    /// apart would let two switches started at once (an account provider's change and an
    /// explicit `switchAccount`) both miss the other's task and swap the stores twice.
    @discardableResult
    func updateAccountState<T>(_ update: (inout AccountState) throws -> T) rethrows -> T {
        try state.withLock { try update(&$0.accounts) }
    }

    /// Stops and forgets the engine of a store about to be removed.
    func removeEngine(for store: PersistentStore) async {
        let engine = state.withLock { state -> MirrorEngine? in
            guard let index = state.engines.firstIndex(where: { $0.mirror.store === store }) else { return nil }
            return state.engines.remove(at: index)
        }
        await engine?.quiesce()
    }

    /// Overrides how conflicts of an entity's properties resolve (by default the later edit
    /// wins). The resolver runs on the importing device when a property was edited both
    /// there and elsewhere; a value it keeps or merges is saved as a new edit and wins on
    /// every device.
    ///
    /// For example, to keep the larger of two counts:
    /// ```swift
    /// container.setConflictResolver(forEntity: "Post") { conflict in
    ///     guard conflict.property == "views", case let .integer(a) = conflict.localValue,
    ///           case let .integer(b) = conflict.remoteValue else { return .byStamp }
    ///     return .merged(.integer(max(a, b)))
    /// }
    /// ```
    public func setConflictResolver(forEntity entityName: String, _ resolver: ConflictResolver?) {
        state.withLock { $0.resolvers[entityName] = resolver }
    }

    /// Makes a transport for a store's options (``FolderTransport`` for options with
    /// ``CloudContainerOptions/folderSync``, else ``HTTPTransport``; replaceable, for tests).
    public var makeTransport: @Sendable (CloudContainerOptions) -> any CloudTransport = { options in
        options.folderSync != nil ? FolderTransport(options: options) : HTTPTransport(options: options)
    }

    /// Observes the coordinator for stores removed behind the container's back.
    private var storeObserver: (any NSObjectProtocol)?

    public override init(name: String, managedObjectModel: ManagedObjectModel) {
        super.init(name: name, managedObjectModel: managedObjectModel)
        viewContext.automaticallyMergesChangesFromParent = true
        // A mirrored store removed from the coordinator directly (not by an account switch)
        // takes its engine with it: no engine task outlives its store.
        storeObserver = NotificationCenter.default.addObserver(
            forName: PersistentStoreCoordinator.storesDidChangeNotification, object: persistentStoreCoordinator, queue: nil
        ) { [weak self] note in
            guard let self, let removed = note.userInfo?[PersistentStoreCoordinator.removedStoresKey] as? [PersistentStore],
                  !removed.isEmpty else { return }
            let gone = self.state.withLock { state -> [MirrorEngine] in
                let gone = state.engines.filter { engine in removed.contains { $0 === engine.mirror.store } }
                state.engines.removeAll { engine in gone.contains { $0 === engine } }
                return gone
            }
            if !gone.isEmpty { Task { for engine in gone { await engine.quiesce() } } }
        }
    }

    deinit {
        if let storeObserver { NotificationCenter.default.removeObserver(storeObserver) }
        // The engines' loops, push sockets and retries end with the container (they hold
        // their stores); a deinitializer can't wait, so a task waits for them.
        let engines = state.withLock { $0.engines }
        if !engines.isEmpty { Task { for engine in engines { await engine.quiesce() } } }
    }

    // MARK: Loading

    /// Adds every store; mirrored stores then set up and sync in the background (when
    /// ``automaticallySyncs``).
    ///
    /// - Throws: ``CloudError`` with ``CloudError/Code-swift.struct/unmirrorableModel`` when a
    ///   mirrored store's entities break the mirroring rules (the store is still added and
    ///   fully usable locally), or the store's own opening errors.
    open override func loadPersistentStores() throws {
        try loadStores()
    }

    private func loadStores() throws {
        var problems: [CloudError] = []
        var templates: [PersistentStoreDescription] = []
        for description in persistentStoreDescriptions {
            if accountProvider != nil, description.cloudContainerOptions != nil {
                templates.append(description)   // one store per account, see CloudContainer+Accounts
                continue
            }
            let store = try persistentStoreCoordinator.addPersistentStore(with: Self.prepared(description))
            do { try mirror(store) } catch let error as CloudError { problems.append(error) }
        }
        if !templates.isEmpty { try loadAccountStores(templates) }
        if let problem = problems.first { throw problem }
    }

    open override func loadPersistentStores() async throws {
        try loadStores()
    }

    open override func loadPersistentStores(completionHandler: @escaping @Sendable (PersistentStoreDescription, (any Error)?) -> Void) {
        for description in persistentStoreDescriptions {
            do {
                let store = try persistentStoreCoordinator.addPersistentStore(with: Self.prepared(description))
                try mirror(store)
                completionHandler(description, nil)
            } catch {
                completionHandler(description, error)
            }
        }
    }

    static func prepared(_ description: PersistentStoreDescription) -> PersistentStoreDescription {
        var description = description
        if description.cloudContainerOptions != nil { description.persistentHistoryTracking = true }
        return description
    }

    func mirror(_ store: PersistentStore) throws {
        guard let described = store.storeDescription.cloudContainerOptions else { return }
        let options = described.locatingFolderIndex(beside: store.url)
        guard store.type == .sqlite, !store.isReadOnly else {
            throw CloudError(.invalidConfiguration, "only writable SQLite stores mirror; \(store.url?.path ?? store.identifier) is not one")
        }
        if let problem = NameRules.problem(with: options.containerIdentifier) ?? NameRules.problem(with: options.zoneName) {
            throw CloudError(.invalidConfiguration, "the container identifier or zone name \(problem)")
        }
        // Refused before anything is sent (the store stays usable locally).
        try options.checkTransportSecurity()
        let mirrored = try MirroredModel(entities: store.entities, model: managedObjectModel)
        let deviceID = try store.writeTransaction { db -> String in
            try SyncMetadata.prepare(db)
            let id = String.fromDatabaseValue(try SyncMetadata.state(.deviceID, db)) ?? UUID().uuidString
            try SyncMetadata.setState(.deviceID, id, db)
            // After a mapping-model migration, metadata follows its objects to their new keys.
            let capture = ChangeCapture(store: store, mirrored: mirrored, importAuthor: Self.importAuthor, deviceID: id)
            try MigratedObjects(store: store, model: managedObjectModel, capture: capture).apply(db)
            // Metadata written under an earlier model version follows this one (entity
            // numbers by name; what it did not know is applied at the next sync).
            try MetadataSchema.reconcile(mirrored, db)
            return id
        }
        var log = Logger(label: "nimbus.cloud")
        log.logLevel = Self.logLevel
        log[metadataKey: "store"] = "\(store.identifier.prefix(8))"
        let mirror = StoreMirror(store: store, coordinator: persistentStoreCoordinator, mirrored: mirrored,
                                 transport: makeTransport(options), options: options, deviceID: deviceID,
                                 importAuthor: Self.importAuthor, log: log,
                                 resolver: { [weak self] entity in self?.state.withLock { $0.resolvers[entity] } },
                                 historyRetention: historyRetention)
        if options.databaseScope == .shared { ReadOnlyShares.guardWrites(of: store, importAuthor: Self.importAuthor) }
        let engine = MirrorEngine(mirror: mirror) { [weak self] event in self?.post(event) }
        state.withLock { $0.engines.append(engine) }
        if automaticallySyncs { Task { await engine.start() } }
    }

    /// `NIMBUS_SYNC_LOG=1…3`: notice, info, debug (as Core Data's `ubiquity.logLevel`).
    static var logLevel: Logger.Level {
        switch ProcessInfo.processInfo.environment["NIMBUS_SYNC_LOG"] {
        case "1": .notice
        case "2": .info
        case "3": .debug
        default: .warning
        }
    }

    // MARK: Syncing

    /// What ``syncNow()`` did, over every mirrored store.
    public struct SyncSummary: Sendable {
        /// Records the server confirmed.
        public var exported = 0
        /// Records applied from the server.
        public var imported = 0
        /// Objects removed because they were deleted elsewhere.
        public var deleted = 0
        /// Fields edited here and elsewhere, resolved by their stamps.
        public var conflicts = 0
    }

    /// Syncs every mirrored store now: exports, imports and exports again until nothing is
    /// pending. A pass running already (the automatic sync's) is waited for, and what it
    /// exchanged is counted in the summary: it reports everything exchanged from the start
    /// of that pass to the end of its own.
    /// - Throws: ``CloudError``; nothing pending is lost, the next sync sends it.
    @discardableResult
    public func syncNow() async throws -> SyncSummary {
        var total = SyncSummary()
        for engine in engines {
            // An explicit sync also looks for zones made or removed elsewhere (automatic
            // passes learn of them by push).
            await engine.requestDiscovery()
            let summary = try await engine.sync()
            total.exported += summary.exported
            total.imported += summary.imported
            total.deleted += summary.deleted
            total.conflicts += summary.conflicts
        }
        return total
    }

    /// Rebuilds every mirrored store from the cloud: empties the replica and imports the
    /// zone again, with import events as progress.
    /// - Parameter discardingPendingChanges: Whether changes not yet on the server may be
    ///   lost; when false (the default) a store with pending changes is refused.
    /// - Throws: ``CloudError`` with ``CloudError/Code-swift.struct/pendingChanges``, or any sync error.
    @discardableResult
    public func rebuildFromCloud(discardingPendingChanges: Bool = false) async throws -> SyncSummary {
        var total = SyncSummary()
        for engine in engines {
            let summary = try await engine.rebuild(discardingPendingChanges: discardingPendingChanges)
            total.imported += summary.imported
            total.exported += summary.exported
        }
        return total
    }

    /// Erases all cloud content of every mirrored store: the server deletes each zone in one
    /// step, this device's replica is emptied, and every other device removes its replica
    /// when it next syncs (and reports it as deletions).
    public func eraseCloudContent() async throws {
        for engine in engines { try await engine.eraseCloudContent() }
    }

    /// Creates each mirrored store's zone on the server now (otherwise the first sync does).
    public func initializeCloudSchema() async throws {
        for engine in engines { try await engine.setUp() }
    }

    /// Stops syncing by itself (edits keep being recorded and go out at the next sync) and
    /// waits until no automatic work of the engines runs. ``startSyncing()`` resumes; the two
    /// may alternate any number of times.
    public func stopSyncing() async {
        for engine in engines {
            for task in await engine.stop() { await task.value }
        }
    }

    /// Starts syncing by itself again (after ``stopSyncing()``, or when
    /// ``automaticallySyncs`` was false at load): now, after each save and on push.
    public func startSyncing() async {
        for engine in engines { await engine.start() }
    }

    var engines: [MirrorEngine] { state.withLock { $0.engines } }

    func mirror(for storeIdentifier: String) -> StoreMirror? {
        engines.first { $0.mirror.store.identifier == storeIdentifier }?.mirror
    }

    // MARK: Events

    /// The engine's events, from now on, as an asynchronous sequence (each call starts one).
    public var events: AsyncStream<CloudEvent> {
        let (stream, continuation) = AsyncStream<CloudEvent>.makeStream(bufferingPolicy: .bufferingNewest(1000))
        let id = UUID()
        state.withLock { $0.subscribers[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) } }
        return stream
    }

    func post(_ event: CloudEvent) {
        for continuation in state.withLock({ Array($0.subscribers.values) }) { continuation.yield(event) }
        NotificationCenter.default.post(name: CloudEvent.notification, object: self, userInfo: [CloudEvent.userInfoKey: event])
    }
}
