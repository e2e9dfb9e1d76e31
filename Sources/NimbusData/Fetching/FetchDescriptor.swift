public import Foundation

/// What to fetch: SwiftData's `FetchDescriptor`.
///
/// ```swift
/// var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.name.contains("a") },
///                                        sortBy: [SortDescriptor(\.startDate, order: .reverse)])
/// descriptor.fetchLimit = 10
/// let trips = try context.fetch(descriptor)
/// ```
public struct FetchDescriptor<T: PersistentModel>: @unchecked Sendable {
    /// Which models match; all without one.
    public var predicate: Predicate<T>?
    /// The order of the results.
    public var sortBy: [SortDescriptor<T>]
    /// The most results to return (nil: no limit).
    public var fetchLimit: Int?
    /// How many matching models to skip.
    public var fetchOffset: Int?
    /// Whether unsaved changes of the context count (true by default).
    public var includePendingChanges = true
    /// The properties to load at once (every persisted property is loaded in Nimbus; the
    /// rest load when read either way).
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// Relationships whose destinations load with the results.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []

    /// Creates a descriptor.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
