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
    @exclusivity(unchecked) public internal(set) var objectID: ManagedObjectID
    @exclusivity(unchecked) var flags = Flags()
    /// Order of insertion into the context (stale entries of the context's insertion order
    /// are recognized by it).
    @exclusivity(unchecked) var insertionSequence: Int32 = 0
    /// The context's weak reference to itself, shared by all its objects: objects hold it
    /// strongly, so no object carries a weak reference of its own.
    @exclusivity(unchecked) var contextReference: ContextReference?
    /// Working values, one per property of the entity (nil while a fault).
    @exclusivity(unchecked) var values: [PropertyValue]?
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
    var committedToMany: [Int: [ManagedObjectID]] {
        get { extras?.committedToMany ?? [:] }
        set { if extras != nil || !newValue.isEmpty { madeExtras.committedToMany = newValue } }
        _modify { yield &madeExtras.committedToMany }
    }
    /// Which to-many relationships are loaded into ``values``.
    var loadedToMany: Set<Int> {
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
    }

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

    /// Called after the object was saved.
    open func didSave() {}

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
    var committedToMany: [Int: [ManagedObjectID]] = [:]
    var loadedToMany: Set<Int> = []
    var toManyValues = ToManyValueCache()
    var batch: (group: BatchFaultGroup, position: Int)?
}
