import Foundation

/// The whole stack in one object: a model, a coordinator, its stores and contexts.
///
/// ```swift
/// let container = PersistentContainer(name: "Posts", managedObjectModel: model)
/// try container.loadPersistentStores()
/// let context = container.newBackgroundContext()
/// ```
///
/// Stores go to ``defaultDirectoryURL()`` (`$XDG_DATA_HOME/nimbus`, else
/// `~/.local/share/nimbus`) as `<name>.sqlite` unless the descriptions say otherwise.
open class PersistentContainer: @unchecked Sendable {
    /// The container's name; the default store file is `<name>.sqlite`.
    public let name: String
    /// The model of every store.
    public let managedObjectModel: ManagedObjectModel
    /// The coordinator of the container's stores.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// The stores to load; one SQLite store in the default directory unless changed.
    public var persistentStoreDescriptions: [PersistentStoreDescription]

    /// The main-queue context for UI work. It merges saves of the container's other
    /// contexts when ``ManagedObjectContext/automaticallyMergesChangesFromParent`` is on.
    public private(set) lazy var viewContext: ManagedObjectContext = {
        let context = ManagedObjectContext(concurrencyType: .mainQueue, coordinator: persistentStoreCoordinator)
        context.name = "viewContext"
        return context
    }()

    /// Creates a container with a model; stores load with ``loadPersistentStores(completionHandler:)``.
    public init(name: String, managedObjectModel: ManagedObjectModel) {
        self.name = name
        self.managedObjectModel = managedObjectModel
        self.persistentStoreCoordinator = PersistentStoreCoordinator(managedObjectModel: managedObjectModel)
        self.persistentStoreDescriptions = [
            PersistentStoreDescription(url: Self.defaultDirectoryURL().appendingPathComponent("\(name).sqlite"))
        ]
    }

    /// Where stores go by default: `$XDG_DATA_HOME/nimbus`, else `~/.local/share/nimbus`.
    open class func defaultDirectoryURL() -> URL {
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true)
        }
        return base.appendingPathComponent("nimbus", isDirectory: true)
    }

    /// Loads every described store, calling the handler once per store with its error.
    /// Descriptions with ``PersistentStoreDescription/shouldAddStoreAsynchronously`` load
    /// on a background queue and call the handler from there.
    open func loadPersistentStores(completionHandler: @escaping @Sendable (PersistentStoreDescription, (any Error)?) -> Void) {
        for description in persistentStoreDescriptions {
            if description.shouldAddStoreAsynchronously {
                DispatchQueue.global().async { [persistentStoreCoordinator] in
                    do {
                        try persistentStoreCoordinator.addPersistentStore(with: description)
                        completionHandler(description, nil)
                    } catch {
                        completionHandler(description, error)
                    }
                }
            } else {
                do {
                    try persistentStoreCoordinator.addPersistentStore(with: description)
                    completionHandler(description, nil)
                } catch {
                    completionHandler(description, error)
                }
            }
        }
    }

    /// Loads every described store, throwing the first error.
    open func loadPersistentStores() throws {
        for description in persistentStoreDescriptions {
            try persistentStoreCoordinator.addPersistentStore(with: description)
        }
    }

    /// Loads every described store off the caller's thread.
    open func loadPersistentStores() async throws {
        for description in persistentStoreDescriptions {
            _ = try await persistentStoreCoordinator.addPersistentStore(with: description)
        }
    }

    /// A new private-queue context of the container's coordinator.
    public func newBackgroundContext() -> ManagedObjectContext {
        ManagedObjectContext(concurrencyType: .privateQueue, coordinator: persistentStoreCoordinator)
    }

    /// Runs a block on a new private-queue context and returns at once.
    public func performBackgroundTask(_ block: @escaping @Sendable (ManagedObjectContext) -> Void) {
        let context = newBackgroundContext()
        context.perform { block(context) }
    }

    /// Runs a block on a new private-queue context and returns its result.
    public func performBackgroundTask<T: Sendable>(_ block: @escaping @Sendable (ManagedObjectContext) throws -> T) async throws -> T {
        let context = newBackgroundContext()
        return try await context.perform { try block(context) }
    }
}
