/// The body of `POST …/databases/{database}/changes`: which zones changed since a
/// database token.
///
/// For example:
/// ```swift
/// let request = FetchDatabaseChangesRequest(since: databaseToken)
/// ```
public struct FetchDatabaseChangesRequest: Codable, Hashable, Sendable {
    /// The position to start after; `nil` lists every zone.
    public var since: ChangeToken?
    /// The most zones in one page.
    public var limit: Int?

    /// Creates a request.
    /// - Parameters:
    ///   - since: The last database token received, or `nil`.
    ///   - limit: The page size.
    public init(since: ChangeToken? = nil, limit: Int? = nil) {
        self.since = since
        self.limit = limit
    }
}

/// One page of database changes: zones changed and zones deleted since the token.
///
/// For example:
/// ```swift
/// for zone in page.changedZones { try await fetchZoneChanges(zone) }
/// ```
public struct FetchDatabaseChangesResponse: Codable, Hashable, Sendable {
    /// Zones whose records changed (or that were created).
    public var changedZones: [ZoneID]
    /// Zones that were deleted.
    public var deletedZones: [ZoneID]
    /// The position after this page.
    public var changeToken: ChangeToken
    /// Whether another page follows.
    public var moreComing: Bool

    /// Creates a page.
    /// - Parameters:
    ///   - changedZones: Changed zones.
    ///   - deletedZones: Deleted zones.
    ///   - changeToken: The position after the page.
    ///   - moreComing: Whether more changes wait.
    public init(changedZones: [ZoneID], deletedZones: [ZoneID], changeToken: ChangeToken, moreComing: Bool) {
        self.changedZones = changedZones
        self.deletedZones = deletedZones
        self.changeToken = changeToken
        self.moreComing = moreComing
    }
}
