import Foundation

/// How to open a store: its type, location and options.
///
/// For example:
///
/// ```swift
/// var description = PersistentStoreDescription(url: URL(fileURLWithPath: "/tmp/Posts.sqlite"))
/// description.journalMode = .delete
/// description.isReadOnly = true
/// ```
public struct PersistentStoreDescription: Sendable, Hashable {
    /// The kind of store.
    public enum StoreType: String, Sendable, Hashable {
        /// A SQLite file (WAL by default).
        case sqlite = "SQLite"
        /// An in-memory store with the same behaviour, gone when removed.
        case inMemory = "InMemory"
    }

    /// SQLite's journal mode.
    public enum JournalMode: String, Sendable, Hashable {
        /// Write-ahead log: many readers, one writer (the default).
        case wal = "WAL"
        /// A rollback journal deleted after each transaction.
        case delete = "DELETE"
    }

    /// Where the store lives (ignored for in-memory stores).
    public var url: URL?
    /// The kind of store.
    public var type: StoreType
    /// The model configuration whose entities the store holds (nil: all).
    public var configuration: String?
    /// Open without writing; saves to it fail.
    public var isReadOnly = false
    /// How long to wait for a lock before failing, in seconds.
    public var timeout: TimeInterval = 5
    /// Whether ``PersistentContainer/loadPersistentStores(completionHandler:)`` adds the
    /// store on a background queue.
    public var shouldAddStoreAsynchronously = false
    /// Journal mode of a SQLite store.
    public var journalMode: JournalMode = .wal
    /// Most readers open at once beside the writer; 1 serializes every request (reads wait
    /// for writes) on a single connection.
    public var maximumConnectionPoolSize = 5
    /// Whether a store written with an older model is migrated when added (the default).
    public var shouldMigrateStoreAutomatically = true
    /// Whether the migration's mapping is inferred (lightweight migration; the default).
    public var shouldInferMappingModelAutomatically = true
    /// Whether the store records persistent history of every save.
    public var persistentHistoryTracking = false
    /// A plan run on the store file before it is added (Core Data's
    /// `NSPersistentStoreStagedMigrationManagerOptionKey`): it takes the store from whichever
    /// of the plan's models wrote it to the last one. See ``StagedMigrationPlan``.
    public var stagedMigrationPlan: StagedMigrationPlan?
    /// Whether the store posts ``PersistentStoreCoordinator/remoteChangeNotification`` when
    /// another coordinator or process commits to it (Core Data's
    /// `NSPersistentStoreRemoteChangeNotificationPostOptionKey`).
    public var postsRemoteChangeNotifications = false
    /// Options as Core Data's option dictionary, keyed by Core Data's names (such as
    /// ``NSPersistentHistoryTrackingKey``; see ``setOption(_:forKey:)``). Keys with a
    /// counterpart set the matching property when the store is added; keys without one, and
    /// unknown keys, are accepted and reported once as a ``StoreOptionWarning`` through
    /// swift-log. A malformed value of a known key is an
    /// ``NimbusError/Code-swift.struct/invalidArgument`` error.
    public var options: [String: String] = [:]

    /// Describes a SQLite store at a URL.
    public init(url: URL) {
        self.url = url
        self.type = .sqlite
    }

    /// Describes a store of a type (an in-memory store needs no URL).
    public init(type: StoreType, url: URL? = nil) {
        self.type = type
        self.url = url
    }
}
