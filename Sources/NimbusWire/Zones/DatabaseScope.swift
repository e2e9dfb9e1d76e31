/// Which database of a container a request addresses.
///
/// For example:
/// ```swift
/// let path = "/v1/containers/com.example.posts/databases/\(DatabaseScope.private.rawValue)/zones"
/// ```
public enum DatabaseScope: String, Codable, Hashable, Sendable, CaseIterable {
    /// The caller's own database; no other user reaches it.
    case `private`
    /// Zones other users shared with the caller.
    case shared
    /// One database per container that every authenticated user reads and writes.
    case `public`
}
