import NimbusWire

/// A participant of a share as the backends store it: the user and their permission.
package struct ShareMember: Hashable, Sendable {
    package var userID: Int64
    package var userName: String
    package var permission: SharePermission

    package init(userID: Int64, userName: String, permission: SharePermission) {
        self.userID = userID
        self.userName = userName
        self.permission = permission
    }
}

/// The share of one private zone.
package struct StoredShare: Hashable, Sendable {
    /// The owner's zone.
    package var zone: ZoneKey
    package var ownerName: String
    package var publicPermission: SharePermission
    /// The current participants, ordered by user name.
    package var participants: [ShareMember]

    package init(zone: ZoneKey, ownerName: String, publicPermission: SharePermission, participants: [ShareMember]) {
        self.zone = zone
        self.ownerName = ownerName
        self.publicPermission = publicPermission
        self.participants = participants.sorted { $0.userName < $1.userName }
    }

    /// The share on the wire.
    package var wire: ZoneShare {
        ZoneShare(
            zoneID: ZoneID(zoneName: zone.zoneName, ownerName: ownerName), publicPermission: publicPermission,
            participants: participants.map { ShareParticipant(userName: $0.userName, permission: $0.permission) })
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
