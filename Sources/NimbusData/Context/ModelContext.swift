public import Nimbus
import Logging
import Synchronization

/// Where models are inserted, fetched, changed and saved: SwiftData's `ModelContext`, over
/// a Nimbus `ManagedObjectContext` of the container's stores.
///
/// A model context may be used from one task at a time (as SwiftData's); its work runs
/// on the Nimbus context's queue, so a model's accessors are safe wherever the model is used.
///
/// ```swift
/// let context = ModelContext(container)
/// context.insert(Trip(name: "Paris"))
/// try context.save()
/// let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
/// ```
public final class ModelContext: @unchecked Sendable {
    /// The container whose stores the context reads and writes.
    public let container: ModelContainer
    /// The Nimbus context underneath, for code that needs Nimbus's own API.
    public let managedObjectContext: ManagedObjectContext

    struct WeakModel {
        weak var model: (any PersistentModel)?
    }

    /// The models of the context's objects, by managed object.
    let registry = Locked<[ObjectIdentifier: WeakModel]>([:])
    let state = Locked(State())

    struct State {
        var autosaveEnabled = false
        var autosaveScheduled = false
        var mergeObserver: (any NSObjectProtocol)?
    }

    static let logger = Logger(label: "NimbusData.ModelContext")

    /// Creates a context of a container's stores.
    public init(_ container: ModelContainer) {
        self.container = container
        self.managedObjectContext = ManagedObjectContext(concurrencyType: .privateQueue,
                                                         coordinator: container.persistentContainer.persistentStoreCoordinator)
        managedObjectContext.name = "ModelContext"
        managedObjectContext.automaticallyMergesChangesFromParent = true
        // A model whose unique values match a stored one updates it (decision 0102).
        managedObjectContext.mergePolicy = .mergeByPropertyObjectTrump
        observeMerges()
    }

    /// A context over an existing Nimbus context (a migration stage's).
    init(wrapping context: ManagedObjectContext, container: ModelContainer) {
        self.container = container
        self.managedObjectContext = context
    }

    deinit {
        if let observer = state.withLock({ $0.mergeObserver }) { NotificationCenter.default.removeObserver(observer) }
    }

    /// Whether the context saves by itself after changes (on for ``ModelContainer/mainContext``).
    public var autosaveEnabled: Bool {
        get { state.withLock { $0.autosaveEnabled } }
        set { state.withLock { $0.autosaveEnabled = newValue } }
    }

    /// Runs work on the Nimbus context's queue.
    func performed<T>(_ block: () throws -> T) rethrows -> T {
        try managedObjectContext.performAndWait(block)
    }

    // MARK: Inserting and deleting

    /// Inserts a model (and the new models its relationships hold); it is saved by the next
    /// ``save()``. Inserting a model twice does nothing.
    ///
    /// ```swift
    /// let trip = Trip(name: "Paris")
    /// context.insert(trip)
    /// ```
    public func insert<T: PersistentModel>(_ model: T) {
        insertModel(model)
        scheduleAutosave()
    }

    func insertModel(_ model: any PersistentModel) {
        let backing = model._nimbusBacking
        if let context = backing.context, backing.object != nil {
            precondition(context === self, "\(type(of: model)) is inserted in another ModelContext; a model belongs to one context (pass its persistentModelID instead)")
            return
        }
        let info = ModelEntityInfo.known(type(of: model))
        performed {
            guard let entity = try? managedObjectContext.entity(named: info.name) else {
                preconditionFailure("\(info.name) is not in the container's schema; add \(info.name).self to ModelContainer(for:)")
            }
            let object = ManagedObject(entity: entity, insertInto: managedObjectContext)
            backing.attach(object, context: self)
            register(model, for: object)
            let pending = backing.pending
            backing.pending = [:]
            for name in info.propertyNames {
                guard let value = pending[name] else { continue }
                setStoredValue(value, forKey: name, of: object)
            }
        }
    }

    /// Deletes a model; a new model is simply forgotten.
    ///
    /// ```swift
    /// context.delete(trip)
    /// ```
    public func delete<T: PersistentModel>(_ model: T) {
        let backing = model._nimbusBacking
        backing.isDeletedFlag = true
        guard let object = backing.object, backing.context === self else { return }
        performed { managedObjectContext.delete(object) }
        scheduleAutosave()
    }

    /// Deletes every model of a type that matches a predicate (all of them without one).
    ///
    /// ```swift
    /// try context.delete(model: Trip.self, where: #Predicate { $0.name.isEmpty })
    /// ```
    ///
    /// - Throws: ``SwiftDataError`` when the predicate cannot run in SQL; nothing is deleted then.
    public func delete<T: PersistentModel>(model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true) throws {
        let models = try fetch(FetchDescriptor<T>(predicate: predicate))
        for model in models { delete(model) }
    }

    // MARK: Saving

    /// Whether the context has unsaved inserts, changes or deletions.
    public var hasChanges: Bool { performed { managedObjectContext.hasChanges } }

    /// The models inserted since the last save.
    public var insertedModelsArray: [any PersistentModel] { performed { managedObjectContext.insertedObjects.map(model(for:)) } }
    /// The models changed since the last save.
    public var changedModelsArray: [any PersistentModel] { performed { managedObjectContext.updatedObjects.map(model(for:)) } }
    /// The models deleted since the last save.
    public var deletedModelsArray: [any PersistentModel] { performed { managedObjectContext.deletedObjects.map(model(for:)) } }

    /// Writes the context's changes to the store in one transaction, posting
    /// ``willSave`` before and ``didSave`` after.
    ///
    /// - Throws: ``SwiftDataError`` (`saveNotAllowed` for a configuration with `allowsSave:
    ///   false`); the underlying Nimbus error (a uniqueness conflict, a validation) as
    ///   `underlying`. Nothing is written when it throws, and the changes stay pending.
    public func save() throws {
        guard hasChanges else { return }
        guard container.allowsSave else {
            throw SwiftDataError(.saveNotAllowed, "the container's configuration has allowsSave: false; make a ModelConfiguration with allowsSave: true to save")
        }
        NotificationCenter.default.post(name: Self.willSave, object: self)
        let (inserted, updated, deleted): ([ManagedObject], [ManagedObject], [ManagedObject]) = performed {
            (Array(managedObjectContext.insertedObjects), Array(managedObjectContext.updatedObjects), Array(managedObjectContext.deletedObjects))
        }
        let deletedIDs = performed { deleted.map { identifier(of: $0) } }
        do {
            try performed { try managedObjectContext.save() }
        } catch {
            throw SwiftDataError(.modelValidationFailure, "the save failed and nothing was written; the changes are still pending: \(error)", underlying: error)
        }
        let userInfo: [AnyHashable: Any] = performed {
            [
                NotificationKey.insertedIdentifiers.rawValue: inserted.map { identifier(of: $0) },
                NotificationKey.updatedIdentifiers.rawValue: updated.map { identifier(of: $0) },
                NotificationKey.deletedIdentifiers.rawValue: deletedIDs,
            ]
        }
        NotificationCenter.default.post(name: Self.didSave, object: self, userInfo: userInfo)
    }

    func identifier(of object: ManagedObject) -> PersistentIdentifier {
        PersistentIdentifier(storage: .object(object.objectID), entityName: object.entity.name)
    }

    /// Discards unsaved changes; observers of changed models are told.
    public func rollback() {
        let changed: [any PersistentModel] = performed {
            let objects = managedObjectContext.updatedObjects.union(managedObjectContext.deletedObjects)
            let inserted = managedObjectContext.insertedObjects
            managedObjectContext.rollback()
            for object in inserted {
                if let model = registeredModel(of: object) { model._nimbusBacking.detach() }
            }
            return objects.compactMap { registeredModel(of: $0) }
        }
        for model in changed {
            model._nimbusBacking.isDeletedFlag = false
            model._nimbusNotifyObservers(Set(type(of: model).schemaMetadata.map(\.name)))
        }
    }

    /// Runs a block of changes and saves them; when the block or the save throws, the
    /// changes are rolled back and the error rethrown.
    ///
    /// ```swift
    /// try context.transaction { context.insert(Trip(name: "Rome")) }
    /// ```
    public func transaction(block: () throws -> Void) throws {
        do {
            try block()
            try save()
        } catch {
            rollback()
            throw error
        }
    }

    // MARK: Autosave

    func scheduleAutosave() {
        let schedule = state.withLock { state in
            guard state.autosaveEnabled, !state.autosaveScheduled else { return false }
            state.autosaveScheduled = true
            return true
        }
        guard schedule else { return }
        Task { @MainActor [self] in
            state.withLock { $0.autosaveScheduled = false }
            do {
                try save()
            } catch {
                Self.logger.error("autosave failed; the changes stay pending until the next save: \(error)")
            }
        }
    }

    /// A change made through a model's accessor.
    func didChange() { scheduleAutosave() }
}
