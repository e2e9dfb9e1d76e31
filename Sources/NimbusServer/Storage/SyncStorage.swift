import Foundation
import NimbusWire

/// A user account.
package struct UserAccount: Hashable, Sendable {
    package var id: Int64
    package var name: String
    package var usedBytes: Int64
    package var quotaBytes: Int64?

    package init(id: Int64, name: String, usedBytes: Int64, quotaBytes: Int64?) {
        self.id = id
        self.name = name
        self.usedBytes = usedBytes
        self.quotaBytes = quotaBytes
    }
}

/// A device token's row, found by the hash of the token.
package struct DeviceToken: Hashable, Sendable {
    package var id: Int64
    package var user: UserAccount
    package var device: String
    package var expiresAt: Int64?
    package var revoked: Bool

    package init(id: Int64, user: UserAccount, device: String, expiresAt: Int64?, revoked: Bool) {
        self.id = id
        self.user = user
        self.device = device
        self.expiresAt = expiresAt
        self.revoked = revoked
    }
}

/// Who asks for a modify batch and what it may use.
package struct ModifyContext: Sendable {
    package var device: String
    package var now: Int64
    /// The user charged for the bytes, or `nil` when no quota applies (the public database).
    package var quotaUserID: Int64?
    /// The quota used when the user has none of their own.
    package var defaultQuotaBytes: Int64

    package init(device: String, now: Int64, quotaUserID: Int64?, defaultQuotaBytes: Int64) {
        self.device = device
        self.now = now
        self.quotaUserID = quotaUserID
        self.defaultQuotaBytes = defaultQuotaBytes
    }
}

/// A committed change that devices hear about.
package struct ChangeEvent: Hashable, Sendable, Codable {
    package var container: String
    package var scope: DatabaseScope
    package var ownerID: Int64
    package var zoneName: String
    /// The zone incarnation (see ``ZoneState/incarnation``), which push tokens name.
    package var zoneIncarnation: Int64
    package var zoneSeq: Int64
    package var databaseSeq: Int64
    package var zoneDeleted: Bool
    /// The zone owner's user name, for events of a participant's shared database.
    package var zoneOwnerName: String?

    package init(zone: ZoneKey, state: ZoneState, zoneDeleted: Bool = false) {
        self.container = zone.database.container
        self.scope = zone.database.scope
        self.ownerID = zone.database.ownerID
        self.zoneName = zone.zoneName
        self.zoneIncarnation = state.incarnation
        self.zoneSeq = state.seq
        self.databaseSeq = state.databaseSeq
        self.zoneDeleted = zoneDeleted
    }

    /// The event a participant's shared database hears when an owner's zone changes, or
    /// when the zone leaves that database (`removed`: unshared, participant removed, zone deleted).
    /// - Parameters:
    ///   - zone: The owner's zone.
    ///   - ownerName: The owner's user name.
    ///   - state: The zone's state after the change.
    ///   - participantID: The participant whose shared database changed.
    ///   - databaseSeq: The participant's shared database position after the change.
    ///   - removed: Whether the zone left the participant's shared database.
    package init(sharedZone zone: ZoneKey, ownerName: String, state: ZoneState, participantID: Int64, databaseSeq: Int64, removed: Bool) {
        self.container = zone.database.container
        self.scope = .shared
        self.ownerID = participantID
        self.zoneName = zone.zoneName
        self.zoneIncarnation = state.incarnation
        self.zoneSeq = state.seq
        self.databaseSeq = databaseSeq
        self.zoneDeleted = removed
        self.zoneOwnerName = ownerName
    }

    package var database: DatabaseKey { DatabaseKey(container: container, scope: scope, ownerID: ownerID) }
}

/// The outcome of a modify batch.
package struct ModifyOutcome: Sendable {
    package var plan: ModifyPlan
    package var zone: ZoneState
    /// The change devices must hear about; `nil` when nothing was written.
    package var event: ChangeEvent?
    /// The same change as the participants of a shared zone hear it, one per participant.
    package var sharedEvents: [ChangeEvent] = []
}

/// One page of a zone's changes.
package struct ZoneChangesPage: Sendable {
    package var zone: ZoneState
    package var records: [StoredRecord]
    package var moreComing: Bool

    /// Takes rows (oldest first, up to `limit + 1`) while the page holds at most `limit`
    /// records and the bytes before each record (``StoredRecord/size``, the fields' JSON) are
    /// under `maximumBytes`: the first record always fits.
    /// - Returns: The page's records and whether more changes remain.
    package static func bounded(
        _ rows: some Sequence<StoredRecord>, limit: Int, maximumBytes: Int64
    ) -> (records: [StoredRecord], moreComing: Bool) {
        var records: [StoredRecord] = []
        var bytes: Int64 = 0
        for row in rows {
            if records.count == limit || (!records.isEmpty && bytes >= maximumBytes) { return (records, true) }
            records.append(row)
            bytes += row.size + Int64(row.recordName.utf8.count)
        }
        return (records, false)
    }
}

/// One page of a database's zone changes.
package struct DatabaseChangesPage: Sendable {
    package var zones: [ZoneChange]
    package var databaseSeq: Int64
    package var moreComing: Bool
    /// The database's tombstone horizon: zone tombstones at or before this position were
    /// purged, so a token older than it cannot be answered (`changeTokenExpired`).
    package var purgedSeq: Int64 = 0
    /// The database's current position: a token beyond it was not issued by this database
    /// as it is now (a restored backup, a forged token) and gets `changeTokenExpired`.
    package var currentSeq: Int64 = 0
}

/// What the server stores, behind one protocol so that SQLite and PostgreSQL pass the same
/// conformance suite.
///
/// Every method is one transaction. Methods that change a zone deliver a ``ChangeEvent`` to
/// the backend's ``ChangeFeed`` after (SQLite) or on (PostgreSQL `NOTIFY`) commit.
package protocol SyncStorage: ShareStorage {
    /// `"sqlite"` or `"postgres"`.
    var backendName: String { get }
    /// Where committed changes are announced.
    var changeFeed: ChangeFeed { get }

    /// Brings the schema up to date. Idempotent; run at start-up.
    func migrate() async throws
    /// Checks that the storage answers.
    func ping() async throws

    // MARK: Accounts
    func createUser(name: String, quotaBytes: Int64?, now: Int64) async throws -> UserAccount
    func user(named name: String) async throws -> UserAccount?
    func createToken(userID: Int64, device: String, tokenHash: String, expiresAt: Int64?, now: Int64) async throws -> Int64
    func token(hash: String) async throws -> DeviceToken?
    func revokeTokens(userID: Int64, device: String?) async throws -> Int

    // MARK: Zones
    // A `shared` database key names a participant: listing and database changes then cover
    // the zones shared with that user (see ``ShareStorage``).
    /// Creates the zone, or returns it when it exists.
    func createZone(_ zone: ZoneKey, now: Int64) async throws -> ZoneState
    /// The live zone, or `nil`.
    func zone(_ zone: ZoneKey) async throws -> ZoneState?
    /// At most `limit` live zones of a database after `cursor` (from the start when `nil`),
    /// ordered by name, then owner name (shared database).
    func listZones(_ database: DatabaseKey, after cursor: ZoneListCursor?, limit: Int) async throws -> [ZoneState]
    /// Deletes a zone and its records.
    /// - Throws: `zoneNotFound`.
    func deleteZone(_ zone: ZoneKey, now: Int64) async throws -> ChangeEvent

    // MARK: Records
    /// Applies a validated batch atomically or per item.
    /// - Throws: `zoneNotFound`, `quotaExceeded`.
    func modifyRecords(_ zone: ZoneKey, _ request: ModifyRecordsRequest, context: ModifyContext) async throws -> ModifyOutcome
    /// The rows (tombstones included) for the given names.
    /// - Throws: `zoneNotFound`.
    func lookupRecords(_ zone: ZoneKey, names: [String]) async throws -> [String: StoredRecord]
    /// Changes after `afterSeq`, oldest first: at most `limit` records, and no record that
    /// starts past `maximumBytes` of record bytes (the first always fits, so a page is never
    /// empty while changes remain). See ``ZoneChangesPage/bounded(_:limit:maximumBytes:)``.
    /// - Throws: `zoneNotFound`.
    func zoneChanges(_ zone: ZoneKey, afterSeq: Int64, limit: Int, maximumBytes: Int64) async throws -> ZoneChangesPage
    /// ``zoneChanges(_:afterSeq:limit:maximumBytes:)`` for a client whose token names zone
    /// incarnation `expectedIncarnation`: a backend that reads replicas reads one only when
    /// its copy of the zone is that incarnation (see `SyncStorage+ZoneChanges.swift`).
    func zoneChanges(_ zone: ZoneKey, afterSeq: Int64, expectedIncarnation: Int64?, limit: Int, maximumBytes: Int64) async throws -> ZoneChangesPage
    /// Zones changed after `afterSeq`, oldest first.
    func databaseChanges(_ database: DatabaseKey, afterSeq: Int64, limit: Int) async throws -> DatabaseChangesPage
    /// The database's current position.
    func databasePosition(_ database: DatabaseKey) async throws -> Int64

    /// Removes tombstones older than `cutoff` (ms since 1970), advancing each zone's horizon.
    func purgeTombstones(olderThan cutoff: Int64) async throws -> Int

    // MARK: Assets
    /// Records that `userID` uploaded an asset to a container; charges its bytes once, in the
    /// same transaction that checks them against the user's quota (`defaultQuotaBytes` when
    /// the account has none), so concurrent or chunked uploads cannot pass it together.
    /// - Throws: `quotaExceeded`, and nothing is recorded.
    func recordAssetUpload(container: String, checksum: String, size: Int64, userID: Int64, now: Int64, defaultQuotaBytes: Int64) async throws
    /// Whether a user may download an asset: they uploaded it, or a record they can read refers to it.
    func mayReadAsset(container: String, checksum: String, userID: Int64) async throws -> Bool
    /// Assets no record refers to, uploaded before `cutoff`; their rows are removed and the
    /// uploaders' bytes released. Returns the checksums no container refers to any more.
    func collectUnreferencedAssets(uploadedBefore cutoff: Int64) async throws -> [String]

    // MARK: Statistics
    /// Live records and their bytes, across all databases.
    func statistics() async throws -> (records: Int64, bytes: Int64)
}
