/// What a share's URL leads to, for the user holding it: `GET /v1/shares/{secret}` (before
/// accepting, as `CKShare.Metadata`) and the answer of `POST /v1/shares/{secret}/accept`.
///
/// A secret that is unknown, or that the caller may not use (not named and no public
/// permission, or taken off the share), is `unknownItem` (404) either way, so a guessed URL
/// learns nothing.
///
/// For example:
/// ```swift
/// let metadata = try JSONDecoder().decode(ShareMetadata.self, from: body)
/// print(metadata.zoneID.ownerName ?? "", metadata.permission)
/// ```
public struct ShareMetadata: Codable, Hashable, Sendable {
    /// The share's identifier.
    public var shareID: String
    /// The container the shared zone belongs to.
    public var containerIdentifier: String
    /// The shared zone, with its owner's name.
    public var zoneID: ZoneID
    /// What the caller may (or will, once accepted) do in the zone.
    public var permission: SharePermission
    /// Where the caller stands now (`nil` for a user the share does not name yet).
    public var state: ParticipantState?

    /// Creates share metadata.
    /// - Parameters:
    ///   - shareID: The share's identifier.
    ///   - containerIdentifier: The container.
    ///   - zoneID: The zone, with its owner.
    ///   - permission: The caller's permission.
    ///   - state: The caller's state.
    public init(shareID: String, containerIdentifier: String, zoneID: ZoneID, permission: SharePermission, state: ParticipantState?) {
        self.shareID = shareID
        self.containerIdentifier = containerIdentifier
        self.zoneID = zoneID
        self.permission = permission
        self.state = state
    }
}
