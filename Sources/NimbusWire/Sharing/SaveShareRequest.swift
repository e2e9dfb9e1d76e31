/// The body of `PUT …/databases/private/zones/{zone}/share`: the complete list of
/// participants a zone should be shared with.
///
/// Saving replaces the previous list: users left out are removed (their devices hear that
/// the zone was deleted from their shared database); users added are invited and reach the
/// zone once they accept with the share's URL; a changed permission applies at once.
/// `publicPermission` (``SharePermission/none`` when omitted) lets users who are not named
/// accept through the URL with that permission.
///
/// For example:
/// ```swift
/// let request = SaveShareRequest(participants: [ShareParticipant(userName: "bob", permission: .readWrite)])
/// ```
public struct SaveShareRequest: Codable, Hashable, Sendable {
    /// The most participants a share holds.
    public static let maximumParticipants = 100

    /// Everyone who should reach the zone, besides its owner.
    public var participants: [ShareParticipant]
    /// What users who are not named may do once they accept through the URL.
    public var publicPermission: SharePermission

    /// Creates a request.
    /// - Parameters:
    ///   - participants: The participants.
    ///   - publicPermission: The permission of everyone else.
    public init(participants: [ShareParticipant], publicPermission: SharePermission = .none) {
        self.participants = participants
        self.publicPermission = publicPermission
    }

    private enum CodingKeys: String, CodingKey {
        case participants, publicPermission
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        participants = try container.decode([ShareParticipant].self, forKey: .participants)
        publicPermission = try container.decodeIfPresent(SharePermission.self, forKey: .publicPermission) ?? SharePermission.none
    }
}
