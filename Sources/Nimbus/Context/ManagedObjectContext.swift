import Dispatch
import Foundation
import Synchronization

/// A scratch pad of objects: fetch them, change them, save them in one transaction.
///
/// A context runs its work on its own serial queue (``ConcurrencyType/privateQueue``) or
/// on the main queue (``ConcurrencyType/mainQueue``). Use `perform(_:)`,
/// ``performAndWait(_:)`` or `await context.perform { … }` to work on it from elsewhere.
/// Objects never leave their context; pass ``ManagedObjectID``s between contexts.
///
/// ```swift
/// let context = container.newBackgroundContext()
/// try await context.perform {
///     let post = ManagedObject(entity: try context.entity(named: "Post"), insertInto: context)
///     post.setValue("Hello", forKey: "title")
///     try context.save()
/// }
/// ```
public final class ManagedObjectContext: @unchecked Sendable {
    /// Where a context runs its work.
    public enum ConcurrencyType: Sendable {
        /// The main queue (and the main actor).
        case mainQueue
        /// A private serial queue of the context's own.
        case privateQueue
    }

    /// Where the context runs its work.
    public let concurrencyType: ConcurrencyType
    /// The coordinator whose stores the context reads and writes.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// When true, the context keeps every object it registers until ``reset()``; when false
    /// (the default) objects the app no longer references, and that have no unsaved
    /// changes, are let go (at the context's next sweep: a save or fetch after many
    /// registrations, or ``registeredObjects``).
    ///
    /// For example, to keep fetched objects (and their loaded values) around for a cache:
    ///
    /// ```swift
    /// context.retainsRegisteredObjects = true
    /// _ = try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag"))
    /// ```
    public var retainsRegisteredObjects: Bool {
        get { checkQueue(); return registry.retainsObjects }
        set { checkQueue(); registry.retainsObjects = newValue }
    }

    let queue: DispatchQueue

    // State below is confined to the context's queue, so the hottest of it skips the
    // runtime's dynamic exclusivity checks.
    let registry = ObjectRegistry()
    /// The context's weak reference to itself, held by its objects; also what queue checks
    /// compare (``QueueConfinement``).
    let reference: ContextReference
    @exclusivity(unchecked) var insertedSet: Set<ManagedObject> = []
    /// Inserted objects in the order they were inserted, with their insertion sequence
    /// (an entry whose object was inserted again later is stale); saves write rows in this order.
    @exclusivity(unchecked) var insertionOrder: [(object: ManagedObject, sequence: Int32)] = []
    @exclusivity(unchecked) var deletedSet: Set<ManagedObject> = []
    @exclusivity(unchecked) var changedSet: Set<ManagedObject> = []
    /// Deleted objects whose delete rules have been applied.
    var processedDeletes: Set<ManagedObject> = []
    /// Errors of faults (and to-many relationships) that accessors which cannot throw
    /// failed to read, by object: the next ``save()`` throws them, since edits made through
    /// those accessors may be missing. Cleared by ``refresh(_:mergeChanges:)`` without
    /// merging, ``rollback()`` and ``reset()``.
    var faultFailures: [ManagedObjectID: NimbusError] = [:]
    /// Stores chosen with ``assign(_:to:)`` for new objects.
    @exclusivity(unchecked) var assignedStores: [ManagedObjectID: String] = [:]
    @exclusivity(unchecked) var insertionCounter: Int32 = 0
    /// Called on the context's queue at the end of a save, a merge and
    /// ``processPendingChanges()``; results controllers listen here.
    let changeObservers = Mutex<[ObjectIdentifier: @Sendable () -> Void]>([:])

    func notifyChangeObservers() {
        for observer in changeObservers.withLock({ Array($0.values) }) { observer() }
    }
    var generation: QueryGeneration = .unpinned
    /// Event tracking, notifications and undo.
    let extras = ContextExtras()
    /// What apps may set from any thread: name, author, merge policy, … (``ContextSettings``).
    let settings = Mutex(ContextSettings())

    /// The parent of a nested context: it reads through its parent and saves into it.
    public let parent: ManagedObjectContext?
    /// Nested contexts of this one, told when this context's saves make IDs permanent.
    var children: [WeakContextReference] = []
    /// Work a sync layer runs inside the next save's transaction for one store.
    var pendingTransactionWork: (store: PersistentStore, hook: TransactionWorkHook)?
    /// Permanent IDs of objects this context saved while they had temporary ones.
    @exclusivity(unchecked) var permanentIDsForTemporary: [ManagedObjectID: ManagedObjectID] = [:]
    /// The last fetch's objects, for to-many faults fired in batches.
    let toManyFaultBatcher = ToManyFaultBatcher()

    /// Creates a context on a coordinator.
    public convenience init(concurrencyType: ConcurrencyType, coordinator: PersistentStoreCoordinator) {
        self.init(concurrencyType: concurrencyType, coordinator: coordinator, parent: nil)
    }

    /// Creates a nested context: it fetches through its parent (seeing the parent's unsaved
    /// changes) and its ``save()`` pushes changes into the parent, not to the store.
    ///
    /// ```swift
    /// let editor = ManagedObjectContext(concurrencyType: .privateQueue, parent: container.viewContext)
    /// ```
    public convenience init(concurrencyType: ConcurrencyType, parent: ManagedObjectContext) {
        self.init(concurrencyType: concurrencyType, coordinator: parent.persistentStoreCoordinator, parent: parent)
        parent.performAndWait { parent.children.append(WeakContextReference(context: self)) }
    }

    private init(concurrencyType: ConcurrencyType, coordinator: PersistentStoreCoordinator, parent: ManagedObjectContext?) {
        self.concurrencyType = concurrencyType
        self.persistentStoreCoordinator = coordinator
        self.parent = parent
        switch concurrencyType {
        case .mainQueue: queue = .main
        case .privateQueue: queue = DispatchQueue(label: "nimbus.context")
        }
        reference = ContextReference(isMainQueue: concurrencyType == .mainQueue)
        reference.context = self
        if concurrencyType == .mainQueue { Self.markMainQueue }
    }

    deinit {
        persistentStoreCoordinator.setMergeObserver(self, enabled: false)
    }

    /// The model of the context's coordinator.
    public var managedObjectModel: ManagedObjectModel { persistentStoreCoordinator.managedObjectModel }

    /// The entity with a name, from the coordinator's model.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unknownEntity``.
    public func entity(named name: String) throws -> EntityDescription {
        try managedObjectModel.entity(named: name)
    }

    /// Whether the caller may use the context: it runs inside the context's `perform` or
    /// `performAndWait` (or, for a main-queue context, on the main thread or main queue).
    var isOnQueue: Bool { reference.isActiveOnCurrentThread }

    /// Runs a block on the context's queue and returns at once.
    ///
    /// Use the context and its objects only inside such blocks (or, for a main-queue
    /// context, on the main actor): any other use stops the process with a message naming
    /// the context (see <doc:Concurrency>).
    public func perform(_ block: @escaping @Sendable () -> Void) {
        let reference = reference
        queue.async {
            QueueConfinement.withActive(reference) {
                block()
                // The block is one event, as a run-loop turn is for Core Data.
                reference.context?.endEvent()
            }
        }
    }

    /// Runs a block on the context's queue and waits for it; reentrant.
    public func performAndWait<T>(_ block: () throws -> T) rethrows -> T {
        let reference = reference
        // Reentrant: this context's block, or a parent's block called from the child's.
        if reference.isInThreadChain { return try block() }
        let holdsMainQueue = ContextReference.holdsMainQueue
        // The main thread (or main queue) already holds the main queue.
        if reference.isMainQueue && holdsMainQueue { return try QueueConfinement.pushing(reference, block) }
        if holdsMainQueue && !ContextReference.mainQueueMarker.isInThreadChain {
            return try queue.sync {
                try QueueConfinement.pushing(ContextReference.mainQueueMarker) { try QueueConfinement.pushing(reference, block) }
            }
        }
        return try queue.sync { try QueueConfinement.pushing(reference, block) }
    }

    /// Runs a block on the context's queue and returns its result.
    ///
    /// ```swift
    /// let count = try await context.perform { try context.count(for: request) }
    /// ```
    public func perform<T: Sendable>(_ block: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let reference = reference
            queue.async {
                continuation.resume(with: Result { try QueueConfinement.withActive(reference, block) })
            }
        }
    }

    /// Marks the main queue, whose blocks may run on a thread other than the main thread
    /// when the process runs `dispatchMain()` (as Swift's main actor does on Linux).
    static let mainQueueKey = DispatchSpecificKey<Bool>()
    static let markMainQueue: Void = DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)

    // MARK: Registry

    /// The object registered for an ID, if the context has it.
    public func registeredObject(for objectID: ManagedObjectID) -> ManagedObject? {
        checkQueue()
        return registry[permanentIDsForTemporary[objectID] ?? objectID]
    }

    /// Every object the context holds (objects the app has let go of are not counted).
    public var registeredObjects: Set<ManagedObject> {
        checkQueue()
        registry.sweep()
        return Set(registry.all)
    }

    /// Makes room for `count` more objects: sweeps released ones at most once.
    func reserveRegistryCapacity(_ count: Int) {
        registry.reserveCapacity(count)
    }

    func register(_ object: ManagedObject) {
        registry.register(object)
    }

    func unregister(_ object: ManagedObject) {
        registry.remove(object)
        insertedSet.remove(object)
        deletedSet.remove(object)
        changedSet.remove(object)
    }
}

/// A weak reference to a nested context.
struct WeakContextReference {
    weak var context: ManagedObjectContext?
}

/// A weak reference to a context, one per context, shared by the context's objects.
@usableFromInline
final class ContextReference: @unchecked Sendable {
    weak var context: ManagedObjectContext?
    /// Whether the context is a main-queue context (usable on the main thread).
    let isMainQueue: Bool
    /// While the context's work runs on a thread: the reference of the context whose work it
    /// interrupted (a child's block waiting on its parent), nil for the outermost. Written
    /// and read only by the thread that holds the context's queue.
    @exclusivity(unchecked) var enclosing: UnsafeMutableRawPointer?
    /// The context's insertion counter when its current event began: objects inserted
    /// since (a higher insertion sequence) need no undo record of their edits.
    @exclusivity(unchecked) var eventInsertionMark: Int32 = 0

    init(isMainQueue: Bool) {
        self.isMainQueue = isMainQueue
    }
}
