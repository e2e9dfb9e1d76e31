/// What the search index holds for one object: a display name (shown in results and
/// searched, weighted above the rest) and its text.
///
/// For example, a photo whose entry also lists its tags:
///
/// ```swift
/// SearchableItem(displayName: "Sunset over Lyon", text: ["sunset", "lyon", "golden hour"])
/// ```
public struct SearchableItem: Sendable, Hashable {
    /// The name results show for the object.
    public var displayName: String?
    /// The searchable text, in pieces (one per property, tag, …).
    public var text: [String]

    /// Creates an item.
    ///
    /// - Parameters:
    ///   - displayName: the name results show; searched too.
    ///   - text: the searchable text.
    public init(displayName: String? = nil, text: [String] = []) {
        self.displayName = displayName
        self.text = text
    }

    /// Whether there is nothing to index (the object's entry is removed).
    public var isEmpty: Bool { (displayName ?? "").isEmpty && text.allSatisfy(\.isEmpty) }
}

/// One search hit: the object, its rank, display name and a snippet with the matching
/// words marked.
///
/// For example:
///
/// ```swift
/// for hit in try indexer.search("cafe*") {
///     print(hit.displayName ?? "", hit.snippet)   // Café Lumière  the [café] on the corner…
///     let photo = try context.existingObject(with: hit.objectID)
/// }
/// ```
public struct SearchResult: Sendable, Hashable {
    /// The matching object.
    public var objectID: ManagedObjectID
    /// How well it matches: higher is better (SQLite's BM25, negated).
    public var rank: Double
    /// The display name, if the entry has one.
    public var displayName: String?
    /// A few words around the best match, matches wrapped in the highlight marks.
    public var snippet: String
}
