import NimbusWire

/// What the holder of a share's URL may get from it: the rule of `GET /v1/shares/{secret}`
/// and `POST …/accept` (server-0025), the same for every backend.
package enum ShareAdmission: Hashable, Sendable {
    /// The caller's membership row (invited, accepted or left).
    case member(permission: SharePermission, state: MembershipState, isPublic: Bool)
    /// A pending invitation under the caller's name, made before their account existed.
    case invitedByName(permission: SharePermission)
    /// Anyone with the link, under the share's public permission.
    case anyone(permission: SharePermission)

    /// A caller's membership row, as stored.
    package struct Membership: Hashable, Sendable {
        package var state: MembershipState
        package var permission: SharePermission
        package var isPublic: Bool

        package init(state: MembershipState, permission: SharePermission, isPublic: Bool) {
            self.state = state
            self.permission = permission
            self.isPublic = isPublic
        }
    }

    /// Decides; `nil` is `unknownItem`, the same answer as an unknown secret.
    ///
    /// The owner gets `nil` (the URL is for others; the owner's share is in their private
    /// database); so does a participant the owner removed, and a user the share does not
    /// name while its public permission is `none`. A row of an ended share counts as none; a
    /// public participant removed when the link closed is a stranger again once it reopens.
    /// - Parameters:
    ///   - isOwner: Whether the caller owns the zone.
    ///   - membership: The caller's membership row, if any.
    ///   - invitation: The permission of a pending invitation under the caller's name, if any.
    ///   - publicPermission: The share's public permission.
    package static func decide(
        isOwner: Bool, membership: Membership?, invitation: SharePermission?, publicPermission: SharePermission
    ) -> ShareAdmission? {
        if isOwner { return nil }
        if let membership, membership.state != .ended {
            switch membership.state {
            case .removed where membership.isPublic:
                // Removed when the link closed: a stranger again once it reopens.
                return publicPermission == SharePermission.none ? nil : .anyone(permission: publicPermission)
            case .removed, .ended:
                return nil
            case .accepted:
                return .member(permission: membership.permission, state: .accepted, isPublic: membership.isPublic)
            case .invited, .left:
                guard membership.isPublic else {
                    return .member(permission: membership.permission, state: membership.state, isPublic: false)
                }
                // Joined through the link and left: back only while the link still admits anyone.
                guard publicPermission != SharePermission.none else { return nil }
                return .member(permission: publicPermission, state: membership.state, isPublic: true)
            }
        }
        if let invitation { return .invitedByName(permission: invitation) }
        if publicPermission != SharePermission.none { return .anyone(permission: publicPermission) }
        return nil
    }

    /// The permission the caller gets.
    package var permission: SharePermission {
        switch self {
        case .member(let permission, _, _), .invitedByName(let permission), .anyone(let permission): permission
        }
    }

    /// The caller's state before accepting (`nil` when the share does not name them).
    package var state: ParticipantState? {
        switch self {
        case .member(_, let state, _): state.wire
        case .invitedByName: .invited
        case .anyone: nil
        }
    }

    /// Whether accepting makes the caller a public participant.
    package var isPublic: Bool {
        switch self {
        case .member(_, _, let isPublic): isPublic
        case .invitedByName: false
        case .anyone: true
        }
    }
}

/// A share found by its secret, with what the backends need to answer its holder.
package struct SharedByURL: Sendable {
    package var zone: ZoneKey
    package var ownerName: String
    package var shareID: String
    package var publicPermission: SharePermission

    package init(zone: ZoneKey, ownerName: String, shareID: String, publicPermission: SharePermission) {
        self.zone = zone
        self.ownerName = ownerName
        self.shareID = shareID
        self.publicPermission = publicPermission
    }

    /// The metadata answered to the holder.
    package func metadata(permission: SharePermission, state: ParticipantState?) -> ShareMetadata {
        ShareMetadata(
            shareID: shareID, containerIdentifier: zone.database.container,
            zoneID: ZoneID(zoneName: zone.zoneName, ownerName: ownerName), permission: permission, state: state)
    }
}
