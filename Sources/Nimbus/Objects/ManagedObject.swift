import Foundation

/// An object of the graph: a row of an entity, managed by a context.
///
/// Read and write its properties by key, or subclass it with typed properties.
/// For example:
///
/// ```swift
/// let post = ManagedObject(entity: postEntity, insertInto: context)
/// post.setValue("Hello", forKey: "title")
/// let title = post.value(forKey: "title") as? String
/// ```
///
/// Objects belong to one context and never cross to another; pass ``objectID`` instead.
open class ManagedObject {
    /// The entity of the object.
    public var entity: EntityDescription { objectID.entity }

    // Stored state, in an order that packs it (the ID is 21 bytes; the flags and the insertion
    // sequence fill its padding): a fetch makes hundreds of thousands of these, and memory
    // touched per object is much of a fetch's time. Objects are confined to their context's
    // queue, so this state skips the runtime's dynamic exclusivity checks (a thread-local
    // access set on every read).

    /// The object's ID; temporary until saved.
    @exclusivity(unchecked) public internal(set) final var objectID: ManagedObjectID
    @exclusivity(unchecked) var flags = Flags()
    /// Whether the copies a `@Managed` class keeps of its attributes match ``values``
    /// (``_loadTypedValues()``); every change of ``values`` clears it.
    @usableFromInline @exclusivity(unchecked) final var typedValuesLoaded = false
    /// Order of insertion into the context (stale entries of the context's insertion order
    /// are recognized by it).
    @exclusivity(unchecked) var insertionSequence: Int32 = 0
    /// The context's weak reference to itself, shared by all its objects: objects hold it
    /// strongly, so no object carries a weak reference of its own.
    @usableFromInline @exclusivity(unchecked) final var contextReference: ContextReference?
    /// Working values, one per property of the entity (nil while a fault).
    @usableFromInline @exclusivity(unchecked) final var values: [PropertyValue]? {
        didSet { typedValuesLoaded = false }
    }
    /// Values as last read from or written to the store (nil for new objects and faults).
    @exclusivity(unchecked) var committed: RowSnapshot?
    /// State few objects need (loaded to-many relationships, batch faults); nil until then.
    @exclusivity(unchecked) private var extras: ObjectExtras?

    /// The context the object belongs to, nil once it is removed from it.
    public internal(set) var managedObjectContext: ManagedObjectContext? {
        get { contextReference?.context }
        set { contextReference = newValue?.reference }
    }

    /// Committed destinations of loaded to-many relationships, by property index.
    var committedToMany: PropertyIndexMap<[ManagedObjectID]> {
        get { extras?.committedToMany ?? [:] }
        set { if extras != nil || !newValue.isEmpty { madeExtras.committedToMany = newValue } }
        _modify { yield &madeExtras.committedToMany }
    }
    /// Which to-many relationships are loaded into ``values``.
    var loadedToMany: PropertyIndexSet {
        get { extras?.loadedToMany ?? [] }
        set { if extras != nil || !newValue.isEmpty { madeExtras.loadedToMany = newValue } }
        _modify { yield &madeExtras.loadedToMany }
    }
    /// Values last given for to-many relationships (``ToManyValueCache``).
    var toManyValues: ToManyValueCache {
        get { extras?.toManyValues ?? ToManyValueCache() }
        set { if extras != nil || !newValue.isEmpty { madeExtras.toManyValues = newValue } }
        _modify { yield &madeExtras.toManyValues }
    }
    /// Observers of properties, by key (see ``observeValue(forKey:_:)``).
    var valueObservers: [String: [UUID: (ManagedObject) -> Void]] {
        get { extras?.valueObservers ?? [:] }
        set { if extras != nil || !newValue.isEmpty { madeExtras.valueObservers = newValue } }
    }
    /// For faults from a fetch with a batch size: the group and this object's position.
    var batch: (group: BatchFaultGroup, position: Int)? {
        get { extras?.batch }
        set { if extras != nil || newValue != nil { madeExtras.batch = newValue } }
    }

    private var madeExtras: ObjectExtras {
        if let extras { return extras }
        let made = ObjectExtras()
        extras = made
        return made
    }

    struct Flags {
        var isInserted = false
        var isDeleted = false
        var isChanged = false
        var isDeletedInStore = false
        /// Touched (changed, deleted) in the context's current event; cleared when it ends.
        var isTouchedInEvent = false
    }

    /// Creates an object of an entity and inserts it into a context.
    public required init(entity: EntityDescription, insertInto context: ManagedObjectContext?) {
        self.objectID = ManagedObjectID(temporaryFor: entity)
        self.values = entity.initialValues
        self.loadedToMany = entity.toManyIndexSet
        if let context { context.insert(self) }
    }

    /// Creates a fault or a loaded object for a stored row; contexts call it when they
    /// fetch. Subclasses inherit it; do not call it yourself.
    public required init(materializing materialization: borrowing Materialization) {
        self.objectID = materialization.id
        self.contextReference = materialization.context
        if let snapshot = materialization.snapshot {
            self.committed = snapshot
            if !materialization.asFault { self.values = snapshot.values }
        }
        loadTypedValuesIfTyped()
    }

    /// Copies the attributes a `@Managed` class reads directly from ``values`` into its own
    /// stored properties; the macro writes the override (each class copies its own and calls
    /// `super`). Called when values are read from the store; do not call or override it
    /// yourself.
    open func _loadTypedValues(from source: _TypedValueSource) {}

    /// What a context passes to create an object for a stored row.
    public struct Materialization {
        let id: ManagedObjectID
        let context: ContextReference
        let snapshot: RowSnapshot?
        let asFault: Bool
    }

    /// Called once after the object is inserted into a context; override to set up values.
    open func awakeFromInsert() {}

    /// Called after the object's values are loaded from the store.
    open func awakeFromFetch() {}

    /// Called before the object is saved; override to derive values.
    open func willSave() {}

    /// Called after the object was saved, deleted objects included (their context has let
    /// go of them by then, so ``managedObjectContext`` is nil for them).
    open func didSave() {}

    /// Called when the object is about to be deleted, before its delete rules apply (when
    /// the context processes pending changes); override to clean up related state.
    open func prepareForDeletion() {}

    /// Called before the object turns into a fault (a refresh, a reset).
    open func willTurnIntoFault() {}

    /// Called after the object turned into a fault; its values are gone.
    open func didTurnIntoFault() {}

    /// Checks a new object before it is saved. The default checks the model's rules
    /// (``validateValue(_:forKey:)`` for each attribute of a subclass) and
    /// ``validateForSave()``; override, call `super`, and throw to refuse.
    ///
    /// - Throws: ``NimbusError`` with ``NimbusError/Code-swift.struct/validationFailed``.
    open func validateForInsert() throws { try throwValidationFailures() }

    /// Checks a changed object before it is saved; as ``validateForInsert()``.
    ///
    /// - Throws: ``NimbusError`` with ``NimbusError/Code-swift.struct/validationFailed``.
    open func validateForUpdate() throws { try throwValidationFailures() }

    /// Checks a deleted object before the delete is saved. The default accepts it (deny
    /// rules are checked when the delete is processed).
    ///
    /// - Throws: ``NimbusError`` with ``NimbusError/Code-swift.struct/validationFailed`` to refuse.
    open func validateForDelete() throws {}

    /// Checks one value for a property against the model's rules (required, range, length,
    /// pattern); subclasses add their own and call `super`. Called for every attribute of
    /// a subclass's object at save, and by ``setValidatedValue(_:forKey:)``. An override may
    /// replace the value with a corrected one.
    ///
    /// ```swift
    /// override func validateValue(_ value: inout Any?, forKey key: String) throws {
    ///     if key == "title", (value as? String)?.isEmpty == true { throw NimbusError(.validationFailed, "title is empty") }
    ///     try super.validateValue(&value, forKey: key)
    /// }
    /// ```
    ///
    /// - Throws: ``NimbusError`` with ``NimbusError/Code-swift.struct/validationFailed``
    ///   or ``NimbusError/Code-swift.struct/unknownProperty``.
    open func validateValue(_ value: inout Any?, forKey key: String) throws {
        try validateModelRules(value, forKey: key)
    }

    /// Called before a property changes through ``setValue(_:forKey:)`` and its relatives;
    /// call `super` when overriding.
    open func willChangeValue(forKey key: String) {}

    /// Called after a property changed through ``setValue(_:forKey:)`` and its relatives:
    /// tells the observers added with ``observeValue(forKey:_:)``. Call `super` when overriding.
    open func didChangeValue(forKey key: String) { notifyValueObservers(forKey: key) }

    /// Override to add validation rules checked on save; return one entry per broken rule.
    /// The model's own rules (required, ranges, patterns, counts) are checked as well.
    ///
    /// ```swift
    /// override func validateForSave() -> [(property: String, reason: String)] {
    ///     endDate < startDate ? [("endDate", "is before the start date")] : []
    /// }
    /// ```
    open func validateForSave() -> [(property: String, reason: String)] { [] }
}

extension ManagedObject: Hashable {
    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension ManagedObject: CustomStringConvertible {
    public var description: String {
        "<\(entity.name) \(objectID)\(values == nil ? " fault" : "")>"
    }
}

/// The state of an object that only some objects need.
final class ObjectExtras {
    var committedToMany: PropertyIndexMap<[ManagedObjectID]> = [:]
    var loadedToMany: PropertyIndexSet = []
    var toManyValues = ToManyValueCache()
    var batch: (group: BatchFaultGroup, position: Int)?
    var valueObservers: [String: [UUID: (ManagedObject) -> Void]] = [:]
}
