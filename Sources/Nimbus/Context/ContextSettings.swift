import Synchronization

/// The settings of a context that apps set from any thread: Core Data apps configure a
/// context right after making it, before any work (`context.mergePolicy = …`,
/// `context.automaticallyMergesChangesFromParent = true`, `context.name = …`), usually not
/// on its queue. They are kept under a lock, so setting one is safe anywhere; a setting
/// changed while the context's queue is working takes effect at the queue's next read of it.
struct ContextSettings: Sendable {
    var name: String?
    var transactionAuthor: String?
    var automaticallyMergesChangesFromParent = false
    var shouldDeleteInaccessibleFaults = true
    var mergePolicy: MergePolicy = .error
    var stalenessInterval: Double = -1
}

extension ManagedObjectContext {
    /// A name for debugging and for persistent history. May be set on any thread.
    public var name: String? {
        get { settings.withLock { $0.name } }
        set { settings.withLock { $0.name = newValue } }
    }

    /// The author recorded in persistent history for this context's saves. May be set on
    /// any thread.
    public var transactionAuthor: String? {
        get { settings.withLock { $0.transactionAuthor } }
        set { settings.withLock { $0.transactionAuthor = newValue } }
    }

    /// Whether saves of other contexts of the same coordinator are merged automatically. May
    /// be set on any thread.
    public var automaticallyMergesChangesFromParent: Bool {
        get { settings.withLock { $0.automaticallyMergesChangesFromParent } }
        set {
            settings.withLock { settings in
                settings.automaticallyMergesChangesFromParent = newValue
                persistentStoreCoordinator.setMergeObserver(self, enabled: newValue)
            }
        }
    }

    /// When true (the default), firing a fault whose row was deleted marks the object
    /// deleted and gives nil values; when false it is an ``NimbusError/Code-swift.struct/inaccessibleFault``
    /// error, thrown by ``ManagedObject/fireFault()`` and ``ManagedObject/validatedValue(forKey:)``
    /// (and by the next ``save()`` when an accessor that cannot throw met it). May be set on
    /// any thread.
    ///
    /// Only a row that is gone counts: a read that fails (a lock held too long, an I/O
    /// error, a corrupt page) never makes an object inaccessible; it stays a fault and the
    /// error reaches the caller the same ways. For example:
    ///
    /// ```swift
    /// context.shouldDeleteInaccessibleFaults = false
    /// do { try post.fireFault() } catch let error as NimbusError where error.code == .inaccessibleFault { … }
    /// ```
    public var shouldDeleteInaccessibleFaults: Bool {
        get { settings.withLock { $0.shouldDeleteInaccessibleFaults } }
        set { settings.withLock { $0.shouldDeleteInaccessibleFaults = newValue } }
    }

    /// How old, in seconds, a row the coordinator cached may be for a fault of this context
    /// to be fulfilled from it, as in Core Data: negative (the default) means any age, 0
    /// means every fault reads the store. May be set on any thread. For example:
    ///
    /// ```swift
    /// context.stalenessInterval = 0      // always the store's latest row
    /// ```
    public var stalenessInterval: Double {
        get { settings.withLock { $0.stalenessInterval } }
        set { settings.withLock { $0.stalenessInterval = newValue } }
    }

    /// How the context's saves resolve conflicts; ``MergePolicy/error`` by default. May be
    /// set on any thread (as apps do right after making a context); a save reads it when it
    /// meets a conflict.
    ///
    /// ```swift
    /// let context = container.newBackgroundContext()
    /// context.mergePolicy = .mergeByPropertyObjectTrump
    /// ```
    public var mergePolicy: MergePolicy {
        get { settings.withLock { $0.mergePolicy } }
        set { settings.withLock { $0.mergePolicy = newValue } }
    }
}
