import NimbusWire

/// Where a membership row stands, as the backends store it (`share_participants.state`).
///
/// The first four are ``ParticipantState``'s; ``ended`` marks the rows of a share its owner
/// deleted: they stay only as tombstones of the participants' shared databases, and a share
/// saved again later does not see them.
package enum MembershipState: String, Hashable, Sendable {
    case invited, accepted, removed, left, ended

    /// The state on the wire (`nil` for ``ended``).
    package var wire: ParticipantState? { ParticipantState(rawValue: rawValue) }
}

/// A participant of a share as the backends store it.
package struct ShareMember: Hashable, Sendable {
    /// The user, or `nil` for a pending invitation by name: the owner named a user this server
    /// did not have when the share was saved (a user created later under the name may accept).
    package var userID: Int64?
    package var userName: String
    package var permission: SharePermission
    package var state: MembershipState
    /// Whether they joined through the share's public permission.
    package var isPublic: Bool

    package init(userID: Int64?, userName: String, permission: SharePermission, state: MembershipState = .invited, isPublic: Bool = false) {
        self.userID = userID
        self.userName = userName
        self.permission = permission
        self.state = state
        self.isPublic = isPublic
    }

    /// The participant on the wire.
    package var wire: ShareParticipant {
        ShareParticipant(userName: userName, permission: permission, state: state.wire, isPublic: isPublic)
    }
}

/// The share of one private zone.
package struct StoredShare: Hashable, Sendable {
    /// The owner's zone.
    package var zone: ZoneKey
    package var ownerName: String
    /// The share's stable, public identifier.
    package var shareID: String
    /// The secret of the share's URL.
    package var secret: String
    package var publicPermission: SharePermission
    /// Every participant the owner sees (all states but ended), ordered by user name.
    package var participants: [ShareMember]

    package init(zone: ZoneKey, ownerName: String, shareID: String, secret: String, publicPermission: SharePermission, participants: [ShareMember]) {
        self.zone = zone
        self.ownerName = ownerName
        self.shareID = shareID
        self.secret = secret
        self.publicPermission = publicPermission
        self.participants = participants.sorted { ($0.userName, $0.userID ?? 0) < ($1.userName, $1.userID ?? 0) }
    }

    /// The share as its owner sees it: every participant's state, and the URL.
    package var ownerWire: ZoneShare {
        ZoneShare(
            zoneID: ZoneID(zoneName: zone.zoneName, ownerName: ownerName), shareID: shareID, publicPermission: publicPermission,
            participants: participants.map(\.wire), url: ShareSecrets.path(of: secret))
    }

    /// The share as a participant sees it: no URL, and of the others only those invited or
    /// accepted (whom the owner removed, or who left, is the owner's business).
    package func participantWire(viewer userID: Int64) -> ZoneShare {
        ZoneShare(
            zoneID: ZoneID(zoneName: zone.zoneName, ownerName: ownerName), shareID: shareID, publicPermission: publicPermission,
            participants: participants.filter { $0.userID == userID || $0.state == .invited || $0.state == .accepted }.map(\.wire))
    }
}

/// What a participant may do in a zone shared with them, and whose zone it is.
package struct SharedZoneGrant: Hashable, Sendable {
    /// The owner's zone, where the records live.
    package var zone: ZoneKey
    package var permission: SharePermission

    package init(zone: ZoneKey, permission: SharePermission) {
        self.zone = zone
        self.permission = permission
    }
}

/// The outcome of saving a share.
package struct ShareSaveOutcome: Sendable {
    package var share: StoredShare
    /// Whether the zone had no share before.
    package var created: Bool
}

/// The shares of a container a user owns or takes part in (`GET …/shares`).
package struct ShareListing: Sendable {
    /// Shares of the user's own zones.
    package var owned: [StoredShare]
    /// Shares naming the user, invited or accepted.
    package var participating: [StoredShare]

    package init(owned: [StoredShare], participating: [StoredShare]) {
        self.owned = owned
        self.participating = participating
    }
}

extension SharePermission {
    /// A permission read from the database.
    /// - Throws: ``UndecodableValueError`` for text that is not a permission.
    package static func stored(_ text: String, in table: String, column: String = "permission") throws -> SharePermission {
        guard let permission = SharePermission(rawValue: text) else {
            throw UndecodableValueError(table: table, column: column, expected: "a share permission", found: "the text '\(text.prefix(40))'")
        }
        return permission
    }
}

extension MembershipState {
    /// A membership state read from the database.
    /// - Throws: ``UndecodableValueError`` for text that is not a state.
    package static func stored(_ text: String) throws -> MembershipState {
        guard let state = MembershipState(rawValue: text) else {
            throw UndecodableValueError(table: "share_participants", column: "state", expected: "a participant state", found: "the text '\(text.prefix(40))'")
        }
        return state
    }
}
