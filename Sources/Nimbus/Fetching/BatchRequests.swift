import Foundation

/// What a batch request returns.
public enum BatchResultType: Sendable, Hashable {
    /// Only whether it succeeded.
    case statusOnly
    /// The number of rows inserted, updated or deleted.
    case count
    /// The IDs of the rows inserted, updated or deleted.
    case objectIDs
}

/// The outcome of a batch request.
public struct BatchResult: Sendable {
    /// Whether the request succeeded.
    public var status = true
    /// Rows affected (for ``BatchResultType/count`` and ``BatchResultType/objectIDs``).
    public var count = 0
    /// IDs of the rows affected (for ``BatchResultType/objectIDs``).
    public var objectIDs: [ManagedObjectID] = []
}

/// Inserts many rows straight into the store, without objects or a context's changes.
///
/// ```swift
/// let request = BatchInsertRequest(entityName: "Post", objects: [["title": "a"], ["title": "b"]])
/// let result = try context.execute(request)
/// ```
///
/// Attributes not given take their defaults; relationships cannot be set this way.
public struct BatchInsertRequest: @unchecked Sendable {
    /// The entity to insert.
    public var entityName: String
    /// The rows, as property dictionaries.
    public var objects: [[String: Any]]
    /// Called repeatedly to fill one dictionary; return true to stop (the dictionary is then ignored).
    public var dictionaryHandler: ((inout [String: Any]) -> Bool)?
    /// Called repeatedly to fill one new object of the entity (in a scratch context, never
    /// saved); return true to stop (the object is then ignored). Its attributes are inserted.
    public var managedObjectHandler: ((ManagedObject) -> Bool)?
    /// What to return.
    public var resultType: BatchResultType = .statusOnly

    /// Inserts the given dictionaries.
    public init(entityName: String, objects: [[String: Any]]) {
        self.entityName = entityName
        self.objects = objects
    }

    /// Inserts dictionaries produced by a handler until it returns true.
    public init(entityName: String, dictionaryHandler: @escaping (inout [String: Any]) -> Bool) {
        self.entityName = entityName
        self.objects = []
        self.dictionaryHandler = dictionaryHandler
    }

    /// Inserts objects filled by a handler until it returns true, as Core Data's
    /// `NSBatchInsertRequest(entity:managedObjectHandler:)`. For example:
    ///
    /// ```swift
    /// var index = 0
    /// let request = BatchInsertRequest(entityName: "Post") { object in
    ///     guard index < titles.count else { return true }
    ///     (object as! Post).title = titles[index]
    ///     index += 1
    ///     return false
    /// }
    /// ```
    public init(entityName: String, managedObjectHandler: @escaping (ManagedObject) -> Bool) {
        self.entityName = entityName
        self.objects = []
        self.managedObjectHandler = managedObjectHandler
    }
}

/// Updates attributes of every row matching a predicate, straight in SQL.
///
/// ```swift
/// var request = BatchUpdateRequest(entityName: "Post")
/// request.predicate = try QueryPredicate(format: "views < 10")
/// request.propertiesToUpdate = ["published": false]
/// try context.execute(request)
/// ```
public struct BatchUpdateRequest: @unchecked Sendable {
    /// The entity to update (its sub-entities' rows included).
    public var entityName: String
    /// Which rows (nil: all).
    public var predicate: QueryPredicate?
    /// New values by attribute name: Swift values, or a ``QueryExpression`` computed in SQL
    /// from the row (for example `.function("add:to:", [.keyPath(["views"]), .constant(.integer(1))])`).
    public var propertiesToUpdate: [String: Any] = [:]
    /// What to return.
    public var resultType: BatchResultType = .statusOnly

    /// Creates a request for an entity.
    public init(entityName: String) { self.entityName = entityName }
}

/// Deletes the rows matching a fetch request, or given by ID, straight in SQL.
///
/// Delete rules apply set-wise: `deny` refuses, `cascade` deletes destinations, `nullify`
/// clears the inverse on rows that point at deleted ones.
public struct BatchDeleteRequest: Sendable {
    enum Target: Sendable {
        case fetch(FetchRequest<ManagedObject>)
        case objectIDs([ManagedObjectID])
    }
    let target: Target
    /// What to return.
    public var resultType: BatchResultType = .statusOnly

    /// Deletes what a fetch request matches (its predicate; sort and limit are ignored).
    public init(fetchRequest: FetchRequest<ManagedObject>) { target = .fetch(fetchRequest) }

    /// Deletes objects by ID.
    public init(objectIDs: [ManagedObjectID]) { target = .objectIDs(objectIDs) }
}
