/// The body of `POST …/zones/{zone}/changes`: fetch what changed in a zone since a token.
///
/// For example:
/// ```swift
/// var request = FetchZoneChangesRequest(since: token, limit: 500)
/// ```
public struct FetchZoneChangesRequest: Codable, Hashable, Sendable {
    /// The largest page the server returns.
    public static let maximumLimit = 2000

    /// The position to start after; `nil` fetches the whole zone.
    public var since: ChangeToken?
    /// The most changes in one page; the server caps it at ``maximumLimit``.
    public var limit: Int?

    /// Creates a request.
    /// - Parameters:
    ///   - since: The last token received, or `nil` for everything.
    ///   - limit: The page size.
    public init(since: ChangeToken? = nil, limit: Int? = nil) {
        self.since = since
        self.limit = limit
    }
}

/// A record deleted since the token, as a tombstone.
public struct DeletedRecord: Codable, Hashable, Sendable {
    /// The deleted record's name.
    public var recordName: String
    /// The stamp of the deletion.
    public var stamp: HLCStamp

    /// Creates a tombstone entry.
    /// - Parameters:
    ///   - recordName: The record's name.
    ///   - stamp: The deletion's stamp.
    public init(recordName: String, stamp: HLCStamp) {
        self.recordName = recordName
        self.stamp = stamp
    }
}

/// One page of zone changes: saved records and deletions in change order, the token to ask
/// for the next page, and whether more are waiting.
///
/// For example:
/// ```swift
/// repeat {
///     page = try await fetch(since: token)
///     apply(page); token = page.changeToken
/// } while page.moreComing
/// ```
public struct FetchZoneChangesResponse: Codable, Hashable, Sendable {
    /// Records saved since the token (each at its latest version).
    public var records: [Record]
    /// Records deleted since the token.
    public var deletions: [DeletedRecord]
    /// The position after this page.
    public var changeToken: ChangeToken
    /// Whether another page follows.
    public var moreComing: Bool

    /// Creates a page.
    /// - Parameters:
    ///   - records: Saved records.
    ///   - deletions: Deleted records.
    ///   - changeToken: The position after the page.
    ///   - moreComing: Whether more changes wait.
    public init(records: [Record], deletions: [DeletedRecord], changeToken: ChangeToken, moreComing: Bool) {
        self.records = records
        self.deletions = deletions
        self.changeToken = changeToken
        self.moreComing = moreComing
    }
}
