import Foundation

extension FetchSortDescriptor {
    /// Creates a sort descriptor from a key path of a typed class (Core Data's
    /// `NSSortDescriptor(keyPath:ascending:)`).
    ///
    /// ```swift
    /// request.sortDescriptors = [try FetchSortDescriptor(\Recipe.prepMinutes, ascending: false)]
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unsupported`` when the key path reads no
    ///   model property of the class (a computed property, or a path across a relationship:
    ///   sort by `FetchSortDescriptor("type.name")` for those).
    public init<Root: ManagedObjectKeyPathNaming, Value>(
        _ keyPath: KeyPath<Root, Value>, ascending: Bool = true, comparison: Comparison = .binary
    ) throws {
        self.init(try Self.propertyName(keyPath, of: Root.self), ascending: ascending, comparison: comparison)
    }

    /// Creates a sort descriptor from Foundation's `SortDescriptor` over a typed class (what
    /// SwiftData's `FetchDescriptor(sortBy:)` takes). Strings compared `.lexical` (the
    /// comparator Foundation offers on every platform) sort in code point order
    /// (``Comparison/binary``); for a localized order use ``init(_:ascending:comparison:)-(KeyPath<Root,Value>,_,_)``
    /// with ``Comparison/localizedStandard``.
    ///
    /// ```swift
    /// let newestFirst = try FetchSortDescriptor(SortDescriptor(\Recipe.createdAt, order: .reverse))
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unsupported`` when the descriptor has no
    ///   key path, its key path reads no model property, or its string comparator is one
    ///   SQL cannot sort by.
    public init<Root: ManagedObjectKeyPathNaming>(_ descriptor: SortDescriptor<Root>) throws {
        guard let keyPath = descriptor.keyPath else {
            throw NimbusError(.unsupported, "a SortDescriptor<\(Root.self)> made from a comparator has no key path to sort a fetch by")
        }
        let name = try Self.propertyName(keyPath, of: Root.self)
        self.init(name, ascending: descriptor.order == .forward, comparison: try Self.comparison(descriptor, name: name))
    }

    private static func propertyName(_ keyPath: AnyKeyPath, of root: (some ManagedObjectKeyPathNaming).Type) throws -> String {
        guard let name = root.propertyName(for: keyPath) else {
            throw NimbusError(.unsupported, """
                \(keyPath) names no model property of \(root); sort by a stored property of the class, \
                or by a string key path such as FetchSortDescriptor("author.name") across a relationship
                """)
        }
        return name
    }

    private static func comparison<Root>(_ descriptor: SortDescriptor<Root>, name: String) throws -> Comparison {
        guard var comparator = descriptor.stringComparator else { return .binary }
        // Compared without the order, which the descriptor's `order` already gave.
        comparator.order = .forward
        guard comparator == .lexical else {
            throw NimbusError(.unsupported, """
                sorting \(name) by \(comparator) has no SQL translation; use .lexical, or \
                FetchSortDescriptor("\(name)", comparison: .localizedStandard) for Finder-like order
                """)
        }
        return .binary
    }
}

extension FetchRequest where Result: ManagedObjectKeyPathNaming {
    /// Sets the sort descriptors from Foundation's `SortDescriptor`s over the fetched class.
    ///
    /// ```swift
    /// try request.setSortDescriptors([SortDescriptor(\Recipe.rating, order: .reverse), SortDescriptor(\Recipe.name)])
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/unsupported`` when a descriptor has no SQL
    ///   translation (see ``FetchSortDescriptor``'s initializer from a `SortDescriptor`);
    ///   the request's sort descriptors are then left as they were.
    public mutating func setSortDescriptors(_ descriptors: [SortDescriptor<Result>]) throws {
        sortDescriptors = try descriptors.map(FetchSortDescriptor.init)
    }
}
