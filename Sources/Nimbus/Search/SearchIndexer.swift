import Foundation
import GRDB
import Logging
import Synchronization

/// Full-text search over a store's objects: the analog of Core Data's Core Spotlight
/// integration, kept in the store file itself (an SQLite FTS5 table) and current from
/// persistent history on a background context.
///
/// Mark attributes ``AttributeDescription/isIndexedBySpotlight`` (Xcode's "Index in
/// Spotlight") and give entities a ``EntityDescription/spotlightDisplayNameProperty``, or
/// supply a ``SearchIndexDelegate``. The store must track persistent history. For example:
///
/// ```swift
/// let indexer = try SearchIndexer(coordinator: container.persistentStoreCoordinator)
/// indexer.startIndexingAutomatically()      // after each save
/// try indexer.indexPendingChanges()         // or now: batch requests, other processes
/// for hit in try indexer.search("cafe*") {
///     print(hit.displayName ?? "", hit.snippet, hit.rank)
/// }
/// ```
///
/// The indexer registers as the history consumer `NimbusSearchIndex`: its cursor is
/// written in the transaction that writes index entries, so it resumes after a crash
/// exactly where it stopped, and history purges never pass it (pause or
/// ``removeIndex()`` to let them). The first run indexes every object.
public final class SearchIndexer: Sendable {
    /// The store indexed.
    public let store: PersistentStore
    /// Decides what is indexed.
    public let delegate: any SearchIndexDelegate
    /// Transactions read from history per write.
    public let batchSize: Int
    let coordinator: PersistentStoreCoordinator
    /// The background context objects are read on.
    let context: ManagedObjectContext
    private let queue = DispatchQueue(label: "nimbus.search-indexer")
    private let state = Mutex(State())
    private static let logger = Logger(label: "nimbus.search")

    /// A notification observer token (NotificationCenter's tokens are thread-safe).
    private struct Observer: @unchecked Sendable { let token: any NSObjectProtocol }

    private struct State {
        var isPaused = false
        var isScheduled = false
        var observer: Observer?
        var lastError: NimbusError?
    }

    /// Creates an indexer for a store of a coordinator (its first store by default) and
    /// creates the index's tables when the store has none.
    ///
    /// - Parameters:
    ///   - coordinator: the coordinator whose store is indexed.
    ///   - store: the store; the coordinator's first store when nil.
    ///   - delegate: decides what is indexed; ``DefaultSearchIndexDelegate`` by default.
    ///   - batchSize: history transactions read per index write.
    /// - Throws: ``NimbusError/Code-swift.struct/noStores``;
    ///   ``NimbusError/Code-swift.struct/invalidArgument`` when the store does not track
    ///   persistent history; ``NimbusError/Code-swift.struct/readOnlyStore``.
    public init(coordinator: PersistentStoreCoordinator, store: PersistentStore? = nil,
                delegate: any SearchIndexDelegate = DefaultSearchIndexDelegate(), batchSize: Int = 100) throws {
        guard let store = store ?? coordinator.persistentStores.first else {
            throw NimbusError(.noStores, "the coordinator has no store to index; add one first")
        }
        guard store.storeDescription.persistentHistoryTracking else {
            throw NimbusError(.invalidArgument, "the search index follows persistent history, which the store at \(store.url?.path ?? "memory") does not track; set persistentHistoryTracking on its description")
        }
        guard !store.isReadOnly else {
            throw NimbusError(.readOnlyStore, "the search index is kept in the store file; open the store for writing")
        }
        self.store = store
        self.coordinator = coordinator
        self.delegate = delegate
        self.batchSize = max(batchSize, 1)
        self.context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try store.database.write { db in try SearchIndexStorage.prepare(db) }
    }

    deinit {
        if let observer = state.withLock({ $0.observer }) { NotificationCenter.default.removeObserver(observer.token) }
    }

    // MARK: Pausing and automatic indexing

    /// Whether indexing is paused: ``indexPendingChanges()`` and automatic indexing do
    /// nothing until ``resume()``. Searches still answer from what is indexed.
    public var isPaused: Bool { state.withLock(\.isPaused) }

    /// Pauses indexing. History is kept for the indexer meanwhile (it stays a consumer).
    public func pause() { state.withLock { $0.isPaused = true } }

    /// Resumes indexing; with automatic indexing on, catches up at once.
    public func resume() {
        let automatic = state.withLock { state in
            state.isPaused = false
            return state.observer != nil
        }
        if automatic { scheduleIndexing() }
    }

    /// The error the last automatic run ended with, if any (it retries on the next save).
    public var lastError: NimbusError? { state.withLock(\.lastError) }

    /// Indexes in the background after every save through this coordinator (batch
    /// requests and other processes are picked up by the next run, or by
    /// ``indexPendingChanges()``). Catches up once at start.
    public func startIndexingAutomatically() {
        let observer = Observer(token: NotificationCenter.default.addObserver(
            forName: ManagedObjectContext.didSaveObjectIDsNotification, object: nil, queue: nil
        ) { [weak self] note in
            guard let self, let source = note.object as? ManagedObjectContext,
                  source.persistentStoreCoordinator === self.coordinator else { return }
            self.scheduleIndexing()
        })
        let previous = state.withLock { state in
            defer { state.observer = observer }
            return state.observer
        }
        if let previous { NotificationCenter.default.removeObserver(previous.token) }
        scheduleIndexing()
    }

    /// Stops automatic indexing.
    public func stopIndexingAutomatically() {
        if let observer = state.withLock({ state in defer { state.observer = nil }; return state.observer }) {
            NotificationCenter.default.removeObserver(observer.token)
        }
    }

    /// Waits until the background runs scheduled so far are done (for tests and shutdown).
    public func waitUntilIdle() { queue.sync {} }

    private func scheduleIndexing() {
        let schedule = state.withLock { state in
            guard !state.isScheduled, !state.isPaused else { return false }
            state.isScheduled = true
            return true
        }
        guard schedule else { return }
        queue.async { [self] in
            state.withLock { $0.isScheduled = false }
            do {
                try indexPendingChanges()
                state.withLock { $0.lastError = nil }
            } catch {
                let failure = error as? NimbusError ?? NimbusError(.sqliteError, "search indexing failed: \(error)")
                Self.logger.error("search indexing failed; it resumes from the same transaction next time: \(failure)")
                state.withLock { $0.lastError = failure }
            }
        }
    }

    // MARK: Search

    /// Searches the index.
    ///
    /// - Parameters:
    ///   - text: the query (see ``SearchQuery``): words, `"phrases"`, `prefix*`, `OR`,
    ///     `-excluded`; case and diacritics are ignored.
    ///   - entityNames: only objects of these entities (sub-entities included); all when nil.
    ///   - limit: the most results.
    ///   - highlight: the marks put around matching words in snippets.
    /// - Returns: the best matches first.
    /// - Throws: ``NimbusError/Code-swift.struct/invalidSearchQuery`` for a malformed query;
    ///   ``NimbusError/Code-swift.struct/unknownEntity``.
    public func search(_ text: String, in entityNames: [String]? = nil, limit: Int = 50,
                       highlight: (open: String, close: String) = ("[", "]")) throws -> [SearchResult] {
        let query = try SearchQuery(text)
        let model = store.database.model
        var sql = """
            SELECT rowid, ZENTITY, ZDISPLAYNAME, snippet(ANIMBUSSEARCH, -1, ?, ?, '…', 12), bm25(ANIMBUSSEARCH, 2.0, 1.0) AS rank
            FROM ANIMBUSSEARCH WHERE ANIMBUSSEARCH MATCH ?
            """
        let arguments: [DatabaseValue] = [highlight.open.databaseValue, highlight.close.databaseValue, query.matchExpression.databaseValue]
        if let entityNames {
            let numbers = try entityNames.flatMap { try model.entity(named: $0).entityNumbersInHierarchy }
            sql += " AND ZENTITY IN (\(numbers.map(String.init).joined(separator: ", ")))"
        }
        sql += " ORDER BY rank LIMIT \(max(limit, 0))"
        let rows: [Row]
        do {
            rows = try store.database.gate.pass(store.identifier) {
                try store.database.writer.read { db in try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)) }
            }
        } catch let error as DatabaseError {
            throw NimbusError(.invalidSearchQuery, "the search \"\(text)\" could not run: \(error.message ?? "\(error)")", underlying: error)
        }
        return rows.compactMap { row in
            guard let entity = model.entity(number: row[1]) else { return nil }
            let rowID: Int64 = row[0]
            let id = ManagedObjectID(entity: entity, storeKey: store.database.storeKey, primaryKey: rowID & (1 << 40 - 1))
            return SearchResult(objectID: id, rank: -(row[4] as Double), displayName: row[2], snippet: row[3] ?? "")
        }
    }
}
