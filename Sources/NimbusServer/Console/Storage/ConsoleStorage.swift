import Foundation
import NimbusWire

/// What the console reads and changes beyond ``SyncStorage``: administrators, lists for the
/// pages, the record browser's pages, the schema and the audit log.
///
/// The SQLite backend implements it; a server on PostgreSQL answers the console's pages with
/// a notice (decision server-0020).
///
/// For example:
/// ```swift
/// if let console = storage as? any ConsoleStorage, try await console.isAdministrator(userID: id) { … }
/// ```
package protocol ConsoleStorage: SyncStorage {
    /// Marks a user as an administrator of the console.
    func setAdministrator(userID: Int64, _ isAdministrator: Bool) async throws
    /// The console's view of one user, or `nil`.
    func consoleUser(id: Int64) async throws -> ConsoleUser?
    /// Every user, ordered by name.
    func consoleUsers() async throws -> [ConsoleUser]
    /// A user's tokens, newest first.
    func consoleTokens(userID: Int64) async throws -> [ConsoleToken]
    /// One token and the id of its user, or `nil`.
    func consoleToken(id: Int64) async throws -> (token: ConsoleToken, userID: Int64)?
    /// One live zone by its row id, or `nil`.
    func consoleZone(rowID: Int64) async throws -> ConsoleZone?
    /// Revokes one token.
    /// - Returns: Whether a live token was revoked.
    func revokeToken(id: Int64) async throws -> Bool
    /// Sets a user's quota (`nil`: the server's default).
    func setQuota(userID: Int64, quotaBytes: Int64?) async throws
    /// Disables a user and revokes every token of theirs in one transaction; re-enabling
    /// lets new tokens be made.
    func setDisabled(userID: Int64, _ disabled: Bool) async throws
    /// Live zones of every database a user owns (private), or of the public database when `userID` is 0.
    func consoleZones(ownerID: Int64) async throws -> [ConsoleZone]
    /// One page of a zone's live records.
    func recordPage(_ query: RecordQuery) async throws -> RecordPage
    /// The record types of a zone's live records, sorted.
    func recordTypes(zoneRowID: Int64) async throws -> [String]
    /// Record types and their fields, with the value types seen, in one zone.
    func schema(zoneRowID: Int64) async throws -> [SchemaEntry]
    /// Every share with its zone, owner and participants (removed ones included).
    func consoleShares() async throws -> [ConsoleShare]
    /// Counts for the overview.
    func consoleCounts() async throws -> ConsoleCounts
    /// Appends to the audit log.
    func appendAudit(_ entry: AuditEntry) async throws
    /// The audit log, newest first.
    func auditLog(limit: Int) async throws -> [AuditEntry]
}

/// A user as the console shows it.
package struct ConsoleUser: Hashable, Sendable {
    package var id: Int64
    package var name: String
    package var usedBytes: Int64
    package var quotaBytes: Int64?
    package var isAdministrator: Bool
    package var isDisabled: Bool
    package var createdAt: Int64
}

/// A device token as the console shows it (never the token itself: only its digest is stored).
package struct ConsoleToken: Hashable, Sendable {
    package var id: Int64
    package var device: String
    package var createdAt: Int64
    package var expiresAt: Int64?
    package var revoked: Bool
}

/// A live zone as the console shows it.
package struct ConsoleZone: Hashable, Sendable {
    package var rowID: Int64
    package var container: String
    package var scope: String
    package var ownerID: Int64
    package var name: String
    package var seq: Int64
    package var records: Int64
    package var bytes: Int64
    package var shared: Bool

    package var key: ZoneKey {
        ZoneKey(database: DatabaseKey(container: container, scope: DatabaseScope(rawValue: scope) ?? .private, ownerID: ownerID), zoneName: name)
    }
}

/// A query of the record browser: one zone, optional filters, a sort and a keyset cursor.
package struct RecordQuery: Hashable, Sendable {
    /// How records are ordered; each order is total (ties broken by name), so a cursor is exact.
    package enum Order: String, CaseIterable, Sendable {
        case name
        case nameDescending = "-name"
        case modified
        case modifiedDescending = "-modified"
    }

    package var zoneRowID: Int64
    package var recordType: String?
    /// A field whose value must equal ``fieldValue`` (compared as text).
    package var fieldName: String?
    package var fieldValue: String?
    package var order: Order = .name
    /// The last row of the previous page: its name and modification time.
    package var after: RecordCursor?
    package var limit: Int = 50
}

/// Where a page of the record browser ends.
package struct RecordCursor: Hashable, Sendable {
    package var name: String
    package var modified: Int64

    /// The cursor as a URL parameter: `<modified>:<name>`.
    package var token: String { "\(modified):\(name)" }

    package init(name: String, modified: Int64) {
        self.name = name
        self.modified = modified
    }

    /// Reads ``token``; `nil` for anything else.
    package init?(token: String) {
        guard let colon = token.firstIndex(of: ":"), let modified = Int64(token[..<colon]) else { return nil }
        self.name = String(token[token.index(after: colon)...])
        self.modified = modified
    }
}

/// One page of records and the cursor of the next, when there is one.
package struct RecordPage: Sendable {
    package var records: [StoredRecord]
    package var next: RecordCursor?
}

/// A field of a record type and the value types seen in it.
package struct SchemaEntry: Hashable, Sendable {
    package var recordType: String
    package var records: Int64
    /// Field name → value types seen, sorted.
    package var fields: [(name: String, types: [String])]

    package static func == (lhs: SchemaEntry, rhs: SchemaEntry) -> Bool {
        lhs.recordType == rhs.recordType && lhs.records == rhs.records
            && lhs.fields.map(\.name) == rhs.fields.map(\.name) && lhs.fields.map(\.types) == rhs.fields.map(\.types)
    }

    package func hash(into hasher: inout Hasher) { hasher.combine(recordType) }
}

/// A share as the console shows it.
package struct ConsoleShare: Hashable, Sendable {
    package var zone: ConsoleZone
    package var ownerName: String
    package var publicPermission: String
    package var participants: [(name: String, permission: String, state: String)]

    package static func == (lhs: ConsoleShare, rhs: ConsoleShare) -> Bool {
        lhs.zone == rhs.zone && lhs.participants.map(\.name) == rhs.participants.map(\.name)
    }

    package func hash(into hasher: inout Hasher) { hasher.combine(zone) }
}

/// The overview's counts.
package struct ConsoleCounts: Hashable, Sendable {
    package var users: Int64
    package var devices: Int64
    package var zones: Int64
    package var records: Int64
    package var bytes: Int64
}

/// One administrator action.
package struct AuditEntry: Hashable, Sendable {
    package var at: Int64
    package var administrator: String
    package var action: String
    package var target: String
    package var detail: String

    package init(at: Int64, administrator: String, action: String, target: String, detail: String) {
        self.at = at
        self.administrator = administrator
        self.action = action
        self.target = target
        self.detail = detail
    }
}
