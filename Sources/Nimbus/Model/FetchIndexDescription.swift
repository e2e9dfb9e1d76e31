/// An index on an entity's rows, as Xcode's "Fetch Indexes" and Core Data's
/// `NSFetchIndexDescription` declare them.
///
/// A binary index is a SQLite B-tree index over one or more columns, each ascending or
/// descending, optionally partial (only rows matching ``partialIndexPredicate``). An R-tree
/// index is a SQLite `rtree` virtual table named `Z_<ENTITY>_<INDEX>` over up to five
/// required numeric attributes, kept current by triggers; fetches whose predicates bound
/// those attributes (`BETWEEN`, `>=`/`<=` pairs, bounding boxes) go through it. For example:
///
/// ```swift
/// EntityDescription("Photo") {
///     AttributeDescription("latitude", .double, isOptional: false)
///     AttributeDescription("longitude", .double, isOptional: false)
///     AttributeDescription("takenAt", .date)
///     FetchIndexDescription(name: "byLocation", elements: [.init("latitude", collationType: .rTree),
///                                                         .init("longitude", collationType: .rTree)])
///     FetchIndexDescription(name: "recentFirst", elements: [.init("takenAt", ascending: false)],
///                           partialIndexPredicate: "takenAt != nil")
/// }
/// ```
///
/// As in Core Data, adding, changing or removing an index does not change the entity's
/// version hash; a store opened for writing creates, changes and drops indexes to match the
/// model. Set ``versionHashModifier`` to force a lightweight migration instead.
public struct FetchIndexDescription: Sendable, Hashable, Codable {
    /// How an element is indexed: Core Data's `NSFetchIndexElementType`.
    public enum CollationType: String, Sendable, Hashable, Codable {
        /// A B-tree index column, ascending or descending.
        case binary = "Binary"
        /// A dimension of an R-tree (range) index.
        case rTree = "RTree"
    }

    /// One property of an index: Core Data's `NSFetchIndexElementDescription`.
    public struct Element: Sendable, Hashable, Codable {
        /// The property name.
        public var property: String
        /// Sort order of the index column (binary elements only).
        public var ascending: Bool
        /// Whether the element is a B-tree column or an R-tree dimension.
        public var collationType: CollationType

        /// Creates an element.
        ///
        /// For example: `.init("createdAt", ascending: false)`, `.init("latitude", collationType: .rTree)`.
        public init(_ property: String, ascending: Bool = true, collationType: CollationType = .binary) {
            self.property = property
            self.ascending = ascending
            self.collationType = collationType
        }

        private enum CodingKeys: String, CodingKey { case property, ascending, collationType }

        /// Decodes an element; only `property` is required.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(try c.decode(String.self, forKey: .property),
                      ascending: try c.decodeIfPresent(Bool.self, forKey: .ascending) ?? true,
                      collationType: try c.decodeIfPresent(CollationType.self, forKey: .collationType) ?? .binary)
        }

        /// Encodes an element; `collationType` only for R-tree elements, so binary indexes
        /// encode as before.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(property, forKey: .property)
            try c.encode(ascending, forKey: .ascending)
            if collationType != .binary { try c.encode(collationType, forKey: .collationType) }
        }
    }

    /// The index name, unique within the entity.
    public var name: String
    /// The indexed properties, in order.
    public var elements: [Element]
    /// For binary indexes: only rows matching this predicate (in the format syntax, over the
    /// entity's own attributes) are indexed.
    public var partialIndexPredicate: String?
    /// Changes the entity's version hash (forcing a lightweight migration) without
    /// changing anything else.
    public var versionHashModifier: String?

    /// Creates an index.
    ///
    /// - Parameters:
    ///   - name: unique within the entity; becomes part of the SQL name `Z_<ENTITY>_<NAME>`.
    ///   - elements: the indexed properties; all binary, or all R-tree.
    ///   - partialIndexPredicate: for binary indexes, which rows are indexed.
    ///   - versionHashModifier: changes the entity's version hash.
    public init(name: String, elements: [Element], partialIndexPredicate: String? = nil, versionHashModifier: String? = nil) {
        self.name = name
        self.elements = elements
        self.partialIndexPredicate = partialIndexPredicate
        self.versionHashModifier = versionHashModifier
    }

    /// Whether this is an R-tree (range) index.
    public var isRTree: Bool { elements.contains { $0.collationType == .rTree } }
}
