import NimbusWire

/// Zone sharing, the part of ``SyncStorage`` behind the `shared` database.
///
/// A share belongs to one zone of its owner's private database (one incarnation: deleting
/// the zone ends the share). Each participant has a membership row that is also the zone's
/// entry in the participant's shared database: it carries a position in that database's
/// change sequence, advanced whenever the zone changes, and stays as a tombstone when the
/// participant loses access so that database changes report the zone as deleted, until the
/// tombstone horizon passes (``purgeShareTombstones(olderThan:)``).
///
/// Every method is one transaction that locks the zone like a modify batch does, and
/// announces participants' changes the way ``SyncStorage`` announces the owner's.
package protocol ShareStorage: Sendable {
    /// The share of a private zone, or `nil` when the zone is not shared.
    /// - Throws: `zoneNotFound`.
    func share(of zone: ZoneKey) async throws -> StoredShare?

    /// Creates the share of a private zone (with a new share id and secret), or replaces its
    /// named participants. New ones are invited (no access until they accept); accepted ones
    /// keep access with their new permission; named users left out are removed and hear
    /// about it on their shared database; public participants follow `publicPermission`
    /// (removed when it becomes `none`).
    /// - Parameters:
    ///   - zone: The owner's private zone.
    ///   - participants: Every named participant, validated by the caller (not the owner, no
    ///     duplicates); `userID` is `nil` for names with no user (pending invitations).
    ///   - publicPermission: The permission of everyone else.
    ///   - now: The time, ms since 1970.
    /// - Throws: `zoneNotFound`.
    func saveShare(_ zone: ZoneKey, participants: [ShareMember], publicPermission: SharePermission, now: Int64) async throws -> ShareSaveOutcome

    /// Deletes the share of a private zone; every participant loses access.
    /// - Throws: `zoneNotFound`; `unknownItem` when the zone is not shared.
    func deleteShare(_ zone: ZoneKey, now: Int64) async throws

    /// A participant leaving a share: their accepted membership becomes `left`.
    /// - Throws: `zoneNotFound` when the zone or the accepted membership does not exist.
    func leaveShare(_ zone: ZoneKey, userID: Int64, now: Int64) async throws

    /// What `userID` may do in `ownerName`'s zone, or `nil` when they have not accepted a share of it.
    func sharedZoneGrant(container: String, ownerName: String, zoneName: String, userID: Int64) async throws -> SharedZoneGrant?

    /// What the share with this URL secret offers the user, or `nil` when it offers nothing
    /// (unknown secret, or ``ShareAdmission/decide(isOwner:membership:invitation:publicPermission:)`` refuses).
    func shareMetadata(secret: String, userID: Int64, userName: String) async throws -> ShareMetadata?

    /// Accepts the share with this URL secret: the zone enters the user's shared database
    /// (their devices hear a `zoneChanged`). Accepting again changes nothing. `nil` as for
    /// ``shareMetadata(secret:userID:userName:)``.
    func acceptShare(secret: String, userID: Int64, userName: String, now: Int64) async throws -> ShareMetadata?

    /// The shares of `container` the user owns, and those naming them (invited or accepted).
    func shares(container: String, userID: Int64, userName: String) async throws -> ShareListing

    /// Removes membership tombstones (participants who lost access) older than `cutoff`
    /// (ms since 1970), advancing each affected shared database's horizon so that its older
    /// change tokens get `changeTokenExpired`. Returns how many were removed.
    func purgeShareTombstones(olderThan cutoff: Int64) async throws -> Int
}
