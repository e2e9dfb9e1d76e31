/// How to order fetch results by one key path.
///
/// Named so that it never clashes with Foundation's `SortDescriptor`. For example:
///
/// ```swift
/// request.sortDescriptors = [
///     FetchSortDescriptor("lastName", comparison: .caseInsensitive),
///     FetchSortDescriptor("age", ascending: false),
/// ]
/// ```
public struct FetchSortDescriptor: Sendable, Hashable {
    /// How strings compare.
    public enum Comparison: String, Sendable, Hashable {
        /// Code point order, as SQLite's BINARY collation.
        case binary
        /// Case-insensitive (`caseInsensitiveCompare:`).
        case caseInsensitive
        /// Localized, case- and diacritic-insensitive (`localizedStandardCompare:`).
        case localizedStandard
    }

    /// The key path to sort by, such as `name` or `author.name`.
    public var keyPath: String
    /// Ascending (the default) or descending.
    public var ascending: Bool
    /// How strings compare.
    public var comparison: Comparison

    /// Creates a sort descriptor.
    public init(_ keyPath: String, ascending: Bool = true, comparison: Comparison = .binary) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.comparison = comparison
    }
}
