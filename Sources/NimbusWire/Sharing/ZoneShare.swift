/// The share of a zone: who, besides its owner, reaches the zone through their `shared`
/// database, and with which permission.
///
/// Sharing is zone-wide, like a CloudKit zone share: every record of the zone is visible to
/// every participant. ``zoneID`` names the owner, because in a participant's shared database
/// a zone is identified by its owner and its name.
///
/// For example:
/// ```swift
/// let share = try JSONDecoder().decode(ZoneShare.self, from: body)
/// let writers = share.participants.filter { $0.permission == .readWrite }.map(\.userName)
/// ```
public struct ZoneShare: Codable, Hashable, Sendable {
    /// The shared zone; ``ZoneID/ownerName`` is always set.
    public var zoneID: ZoneID
    /// What users who are not participants may do: always ``SharePermission/none`` here.
    public var publicPermission: SharePermission
    /// The participants, ordered by user name.
    public var participants: [ShareParticipant]

    /// Creates a share description.
    /// - Parameters:
    ///   - zoneID: The zone, with its owner's name.
    ///   - publicPermission: The permission of everyone else.
    ///   - participants: The participants.
    public init(zoneID: ZoneID, publicPermission: SharePermission = .none, participants: [ShareParticipant]) {
        self.zoneID = zoneID
        self.publicPermission = publicPermission
        self.participants = participants
    }
}
