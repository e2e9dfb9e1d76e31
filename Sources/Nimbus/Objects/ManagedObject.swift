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
    /// The object's ID; temporary until saved.
    @exclusivity(unchecked) public internal(set) var objectID: ManagedObjectID
    /// The context the object belongs to, nil once it is removed from it.
    public internal(set) var managedObjectContext: ManagedObjectContext? {
        get { contextReference?.context }
        set { contextReference = newValue?.reference }
    }
    /// The context's weak reference to itself, shared by all its objects: objects hold it
    /// strongly, so no object carries a weak reference of its own.
    @exclusivity(unchecked) private var contextReference: ContextReference?

    // Objects are confined to their context's queue, so the accessors' hot state skips the
    // runtime's dynamic exclusivity checks (a thread-local access set on every read).

    /// Working values, one per property of the entity (nil while a fault).
    @exclusivity(unchecked) var values: [PropertyValue]?
    /// Values as last read from or written to the store (nil for new objects and faults).
    @exclusivity(unchecked) var committed: RowSnapshot?
    /// Committed destinations of loaded to-many relationships, by property index.
    @exclusivity(unchecked) var committedToMany: [Int: [ManagedObjectID]] = [:]
    /// Which to-many relationships are loaded into ``values``.
    @exclusivity(unchecked) var loadedToMany: Set<Int> = []
    @exclusivity(unchecked) var flags = Flags()
    /// Order of insertion into the context, so new rows get keys in the order objects were made.
    @exclusivity(unchecked) var insertionSequence = 0
    /// For faults from a fetch with a batch size: the group and this object's position.
    @exclusivity(unchecked) var batch: (group: BatchFaultGroup, position: Int)?

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
        "<\(entity.name) \(objectID)\(isFault ? " fault" : "")>"
    }
}
