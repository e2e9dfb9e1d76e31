/// The changes of one save for one store, built by a context and written in one
/// transaction. IDs of inserted objects are temporary; the store makes them permanent.
struct SaveRequest: Sendable {
    struct Insert: Sendable {
        var id: ManagedObjectID
        /// One value per property of the entity (to-many entries are ignored).
        var values: [PropertyValue]
    }

    struct Update: Sendable {
        var id: ManagedObjectID
        /// The version the context read; the row must still have it (optimistic locking).
        var expectedVersion: Int64
        /// Changed stored properties: (property index, new value).
        var changes: [(index: Int, value: PropertyValue)]
        /// Every changed property, to-many relationships included, for persistent history.
        var changedProperties: [Int] = []
    }

    struct Delete: Sendable {
        var id: ManagedObjectID
        /// Values of attributes marked "preserve after deletion", for the history tombstone.
        var tombstone: [String: PropertyValue] = [:]
    }

    /// A row to add to or remove from a join table.
    struct JoinChange: Sendable {
        var table: StoreSchema.JoinTable
        var first: ManagedObjectID
        var second: ManagedObjectID
        var order: Int?
        var isInsert: Bool
        /// Sets only the inverse side's position (`JoinTable/inverseOrderColumn`) of an
        /// existing row: `first`'s position in `second`'s ordered relationship.
        var setsInverseOrder = false
    }

    /// The position of a destination in an ordered one-to-many relationship.
    struct OrderChange: Sendable {
        var table: String
        var column: String
        var id: ManagedObjectID
        var position: Int
    }

    var inserts: [Insert] = []
    var updates: [Update] = []
    var deletes: [Delete] = []
    var joinChanges: [JoinChange] = []
    var orderChanges: [OrderChange] = []
    /// Whether saved values may refer to objects by temporary IDs (some saved object has
    /// relationships): the store then maps temporary IDs to permanent ones.
    var resolvesReferences = false
    /// Who saved, for persistent history.
    var author: String?
    var contextName: String?

    var isEmpty: Bool { inserts.isEmpty && updates.isEmpty && deletes.isEmpty && joinChanges.isEmpty && orderChanges.isEmpty }
}

/// What a store reports after a save: the permanent IDs of inserted objects and the new
/// version of every updated row (inserted rows have version 1).
struct SaveResult: Sendable {
    /// The permanent IDs of the inserted objects, in the order of the request's inserts.
    var insertedIDs: [ManagedObjectID] = []
    /// Temporary IDs of inserted objects to permanent ones; filled only when the request
    /// ``SaveRequest/resolvesReferences``.
    var permanentIDs: [ManagedObjectID: ManagedObjectID] = [:]
    var versions: [ManagedObjectID: Int64] = [:]
}
