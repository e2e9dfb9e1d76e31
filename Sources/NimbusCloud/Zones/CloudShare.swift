import Foundation
import NimbusWire

/// A share: a zone of the owner's private database that other users reach through their
/// shared store, as a `CKShare` of a zone.
///
/// For example:
/// ```swift
/// let (_, share) = try await container.share([list], to: nil)
/// var updated = share
/// updated.participants.append(ShareParticipant(userName: "grace", permission: .readWrite))
/// _ = try await container.persistUpdatedShare(updated, in: privateStore)
/// print(updated.url?.absoluteString ?? "")
/// ```
public struct CloudShare: Sendable, Hashable {
    /// The share's identifier (not a secret).
    public var shareID: String
    /// The shared zone, with its owner's name when the share is another user's.
    public var zoneID: ZoneID
    /// The URL a participant accepts the share with (the owner's view only: it holds the secret).
    public var url: URL?
    /// What users who are not named may do once they accept through the URL.
    public var publicPermission: SharePermission
    /// The participants, with their permissions and states.
    public var participants: [ShareParticipant]
    /// Whether the signed-in user owns the share.
    public var isOwner: Bool

    /// A share as the server describes it, with the invitation path made absolute.
    init(_ share: ZoneShare, serverURL: URL, isOwner: Bool) {
        shareID = share.shareID ?? ZoneLane.key(of: share.zoneID)
        zoneID = isOwner ? ZoneID(zoneName: share.zoneID.zoneName) : share.zoneID
        var base = serverURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        url = share.url.flatMap { URL(string: base + $0) }
        publicPermission = share.publicPermission
        participants = share.participants
        self.isOwner = isOwner
    }

    /// The request that saves this share's participants and public permission.
    var saveRequest: SaveShareRequest {
        SaveShareRequest(participants: participants.filter { $0.state != .removed && $0.isPublic != true }
                            .map { ShareParticipant(userName: $0.userName, permission: $0.permission) },
                         publicPermission: publicPermission)
    }

    /// The secret of a share URL (`…/v1/shares/{secret}`).
    static func secret(of url: URL) -> String? { HTTPTransport.shareSecret(in: url.absoluteString) }
}
