/// An index on an entity's table, as Xcode's "Fetch Indexes" declare them.
///
/// For example:
///
/// ```swift
/// FetchIndexDescription(name: "byDate", elements: [.init("createdAt", ascending: false)])
/// ```
public struct FetchIndexDescription: Sendable, Hashable, Codable {
    /// One property of an index.
    public struct Element: Sendable, Hashable, Codable {
        /// The property name.
        public var property: String
        /// Sort order of the index column.
        public var ascending: Bool
        /// Creates an element.
        public init(_ property: String, ascending: Bool = true) {
            self.property = property
            self.ascending = ascending
        }
    }

    /// The index name, unique within the entity.
    public var name: String
    /// The indexed properties, in order.
    public var elements: [Element]

    /// Creates an index.
    public init(name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }
}
