/// What a fetch returns: objects, IDs, dictionaries or a count.
public protocol FetchRequestResult {}

extension ManagedObject: FetchRequestResult {}
extension ManagedObjectID: FetchRequestResult {}
extension Dictionary: FetchRequestResult where Key == String, Value == Any {}
extension Int: FetchRequestResult {}

/// A description of what to fetch: an entity, a predicate, an order, a slice, and the
/// shape of the results.
///
/// ```swift
/// var request = FetchRequest<ManagedObject>(entityName: "Post")
/// request.predicate = try QueryPredicate(format: "title BEGINSWITH[c] %@", "swift")
/// request.sortDescriptors = [FetchSortDescriptor("createdAt", ascending: false)]
/// request.fetchLimit = 20
/// let posts = try context.fetch(request)
/// ```
public struct FetchRequest<Result: FetchRequestResult>: Sendable {
    /// The shape of each result.
    public enum ResultType: Sendable, Hashable {
        /// Managed objects (the default for `FetchRequest<ManagedObject>` and subclasses).
        case managedObject
        /// Object IDs.
        case managedObjectID
        /// `[String: Any]` dictionaries of ``FetchRequest/propertiesToFetch``.
        case dictionary
        /// The number of matching objects.
        case count
    }

    /// The name of the entity to fetch.
    public var entityName: String
    /// The stores to search (nil, the default: every store that holds the entity).
    public var affectedStores: [PersistentStore]?
    /// Which objects to fetch (nil: all).
    public var predicate: QueryPredicate?
    /// The order of the results.
    public var sortDescriptors: [FetchSortDescriptor] = []
    /// The most results to return (0: no limit).
    public var fetchLimit = 0
    /// How many results to skip.
    public var fetchOffset = 0
    /// When more than 0, objects are returned as faults that load in batches of this size.
    public var fetchBatchSize = 0
    /// The shape of each result.
    public var resultType: ResultType
    /// Whether objects of sub-entities are included (the default).
    public var includesSubentities = true
    /// Whether unsaved inserts, updates and deletes of the context count (the default).
    public var includesPendingChanges = true
    /// Whether rows are read with the IDs; false fetches IDs only and faults read rows later.
    public var includesPropertyValues = true
    /// Whether objects are returned as faults (their row is read but not yet materialized).
    public var returnsObjectsAsFaults = true
    /// For dictionary results: the properties and expressions to fetch (nil: every attribute).
    public var propertiesToFetch: [FetchProperty]?
    /// For dictionary results: group by these properties.
    public var propertiesToGroupBy: [FetchProperty]?
    /// For grouped dictionary results: keep only groups matching this predicate.
    public var havingPredicate: QueryPredicate?
    /// For dictionary results: drop duplicate rows.
    public var returnsDistinctResults = false
    /// Relationship key paths whose destinations are fetched with the results.
    public var relationshipKeyPathsForPrefetching: [String] = []

    /// Creates a request for an entity; the result type follows `Result`.
    public init(entityName: String) {
        self.entityName = entityName
        switch Result.self {
        case is ManagedObjectID.Type: resultType = .managedObjectID
        case is [String: Any].Type: resultType = .dictionary
        case is Int.Type: resultType = .count
        default: resultType = .managedObject
        }
    }
}

/// A property or an expression fetched into dictionary results.
///
/// ```swift
/// request.propertiesToFetch = ["name", .expression(name: "total", .function("count:", [.keyPath(["name"])]), type: .integer64)]
/// ```
public enum FetchProperty: Sendable, Hashable, ExpressibleByStringLiteral {
    /// A property (or a to-one key path) by name; the dictionary key is the name.
    case property(String)
    /// An expression under a name, with the type of its result.
    case expression(name: String, QueryExpression, type: AttributeType)

    public init(stringLiteral value: String) { self = .property(value) }

    /// The key of the value in result dictionaries.
    public var name: String {
        switch self {
        case let .property(name): name
        case let .expression(name, _, _): name
        }
    }
}
