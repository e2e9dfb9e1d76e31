/// The answer of `GET /v1/containers/{container}/shares`: the caller's shares in the
/// container, those they own and those they take part in.
///
/// For example:
/// ```swift
/// let list = try JSONDecoder().decode(ShareListResponse.self, from: body)
/// for share in list.owned { print(share.shareID ?? "", share.participants.count) }
/// ```
public struct ShareListResponse: Codable, Hashable, Sendable {
    /// Shares of the caller's own zones (with their ``ZoneShare/url``).
    public var owned: [ZoneShare]
    /// Shares of other users' zones naming the caller, invited or accepted (without URL).
    public var participating: [ZoneShare]

    /// Creates a listing.
    /// - Parameters:
    ///   - owned: The caller's own shares.
    ///   - participating: Shares the caller is invited to or accepted.
    public init(owned: [ZoneShare], participating: [ZoneShare]) {
        self.owned = owned
        self.participating = participating
    }
}
