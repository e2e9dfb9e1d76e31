/// The share of a zone: who, besides its owner, reaches the zone through their `shared`
/// database, and with which permission.
///
/// Sharing is zone-wide, like a CloudKit zone share: every record of the zone is visible to
/// every participant who accepted. ``zoneID`` names the owner, because in a participant's
/// shared database a zone is identified by its owner and its name.
///
/// For example:
/// ```swift
/// let share = try JSONDecoder().decode(ZoneShare.self, from: body)
/// let writers = share.participants.filter { $0.permission == .readWrite }.map(\.userName)
/// ```
public struct ZoneShare: Codable, Hashable, Sendable {
    /// The shared zone; ``ZoneID/ownerName`` is always set.
    public var zoneID: ZoneID
    /// The share's identifier: stable for the life of the share, not a secret.
    public var shareID: String?
    /// What users who are not named may do once they accept through the URL.
    public var publicPermission: SharePermission
    /// The participants (every state), ordered by user name.
    public var participants: [ShareParticipant]
    /// The share's invitation path, `/v1/shares/{secret}`, relative to the server's base URL.
    /// Only the owner's answers carry it: the secret in it is what lets a participant accept.
    public var url: String?

    /// Creates a share description.
    /// - Parameters:
    ///   - zoneID: The zone, with its owner's name.
    ///   - shareID: The share's identifier.
    ///   - publicPermission: The permission of users who are not named.
    ///   - participants: The participants.
    ///   - url: The invitation path (owner's answers only).
    public init(zoneID: ZoneID, shareID: String? = nil, publicPermission: SharePermission = .none,
                participants: [ShareParticipant], url: String? = nil) {
        self.zoneID = zoneID
        self.shareID = shareID
        self.publicPermission = publicPermission
        self.participants = participants
        self.url = url
    }
}
