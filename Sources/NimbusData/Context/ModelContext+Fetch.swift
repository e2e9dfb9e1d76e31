public import Foundation
import Nimbus

extension ModelContext {
    /// The models a descriptor describes.
    ///
    /// ```swift
    /// let trips = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Paris" }))
    /// ```
    ///
    /// - Throws: ``SwiftDataError`` `unsupportedPredicate` or `unsupportedSortDescriptor`
    ///   naming what has no SQL translation; the store's read errors as `underlying`.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        let request: FetchRequest<ManagedObject> = try makeRequest(descriptor)
        return try performed {
            try managedObjectContext.fetch(request).map { model(for: $0) as! T }
        }
    }

    /// The number of models a descriptor describes.
    ///
    /// ```swift
    /// let count = try context.fetchCount(FetchDescriptor<Trip>())
    /// ```
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        let request: FetchRequest<ManagedObject> = try makeRequest(descriptor)
        return try performed { try managedObjectContext.count(for: request) }
    }

    /// The identifiers of the models a descriptor describes, without loading them.
    ///
    /// ```swift
    /// let ids = try context.fetchIdentifiers(FetchDescriptor<Trip>())
    /// ```
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        let request: FetchRequest<ManagedObjectID> = try makeRequest(descriptor)
        return try performed {
            try managedObjectContext.fetch(request).map { PersistentIdentifier(storage: .object($0), entityName: $0.entity.name) }
        }
    }

    /// Calls a block with each model a descriptor describes, loading them in batches.
    ///
    /// ```swift
    /// try context.enumerate(FetchDescriptor<Trip>(), batchSize: 500) { trip in total += trip.bucketList.count }
    /// ```
    public func enumerate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int = 5000, allowEscapingMutations: Bool = false,
        block: (T) throws -> Void
    ) throws {
        let size = max(batchSize, 1)
        var offset = descriptor.fetchOffset ?? 0
        var remaining = descriptor.fetchLimit ?? Int.max
        while remaining > 0 {
            var page = descriptor
            page.fetchOffset = offset
            page.fetchLimit = min(size, remaining)
            let models = try fetch(page)
            for model in models { try block(model) }
            if models.count < size { break }
            offset += models.count
            remaining -= models.count
        }
    }

    func makeRequest<T: PersistentModel, Result: FetchRequestResult>(_ descriptor: FetchDescriptor<T>) throws -> FetchRequest<Result> {
        let info = try ModelEntityInfo.info(for: T.self)
        var request = FetchRequest<Result>(entityName: info.name)
        if let predicate = descriptor.predicate {
            do {
                request.predicate = try QueryPredicate(translating: predicate)
            } catch {
                throw SwiftDataError(.unsupportedPredicate, "the predicate of FetchDescriptor<\(T.self)> cannot run in SQL: \(error)", underlying: error)
            }
        }
        request.sortDescriptors = try descriptor.sortBy.map(Self.sortDescriptor)
        request.fetchLimit = descriptor.fetchLimit ?? 0
        request.fetchOffset = descriptor.fetchOffset ?? 0
        request.includesPendingChanges = descriptor.includePendingChanges
        request.relationshipKeyPathsForPrefetching = descriptor.relationshipKeyPathsForPrefetching.compactMap { T.propertyName(for: $0) }
        return request
    }

    static func sortDescriptor<T: PersistentModel>(_ descriptor: SortDescriptor<T>) throws -> FetchSortDescriptor {
        guard let keyPath = descriptor.keyPath, let name = T.propertyName(for: keyPath) else {
            throw SwiftDataError(.unsupportedSortDescriptor, "a SortDescriptor<\(T.self)> sorts by a stored property of \(T.self) in Nimbus (not a comparator, a computed property or a path across a relationship)")
        }
        // Foundation on Linux compares strings `.lexical` only (its default there): code point
        // order, as SQL's binary collation.
        if var comparator = descriptor.stringComparator {
            comparator.order = .forward
            guard comparator == .lexical else {
                throw SwiftDataError(.unsupportedSortDescriptor, "sorting \(name) by \(comparator) has no SQL translation; use .lexical")
            }
        }
        return FetchSortDescriptor(name, ascending: descriptor.order == .forward, comparison: .binary)
    }
}
