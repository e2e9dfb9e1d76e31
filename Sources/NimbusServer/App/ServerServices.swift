import Foundation
import NimbusWire

/// Everything routes need, built once per server.
package struct ServerServices: Sendable {
    package let configuration: ServerConfiguration
    package let storage: any SyncStorage
    package let clock: ServerClock
    package let metrics: ServerMetrics
    package let assets: AssetStore
    package let authenticator: Authenticator

    package var changeFeed: ChangeFeed { storage.changeFeed }

    /// The database a route addresses, checked against the caller.
    ///
    /// - `private`: the caller's own; `?owner=` naming anyone else fails with `permissionFailure`.
    /// - `public`: one per container.
    /// - `shared`: the caller's shared database, the zones other users shared with them
    ///   (`?owner=` does not apply at this level).
    /// - Throws: `invalidArguments` for a bad container or scope; `permissionFailure`.
    package func database(container: String, scope: String, owner: String?, principal: Principal) throws -> DatabaseKey {
        if let problem = NameRules.problem(with: container) {
            throw WireError(.invalidArguments, "The container name \(problem).")
        }
        guard let scope = DatabaseScope(rawValue: scope) else {
            throw WireError(.invalidArguments, "'\(scope)' is not a database; use private, shared or public.")
        }
        switch scope {
        case .private:
            if let owner, owner != principal.userName {
                throw WireError(.permissionFailure, "The private database of '\(owner)' is reachable only by that user.")
            }
            return DatabaseKey(container: container, scope: .private, ownerID: principal.userID)
        case .public:
            return DatabaseKey(container: container, scope: .public, ownerID: DatabaseKey.publicOwner)
        case .shared:
            return DatabaseKey(container: container, scope: .shared, ownerID: principal.userID)
        }
    }

    /// The zone a route that creates, deletes or shares zones addresses: one of the caller's
    /// own or a public one. Zones of the shared database are reached through
    /// ``accessibleZone(container:scope:owner:zoneName:principal:intent:)``.
    /// - Throws: `invalidArguments` for a bad zone name; `permissionFailure` in the shared
    ///   database; and the errors of ``database(container:scope:owner:principal:)``.
    package func zone(container: String, scope: String, owner: String?, zoneName: String, principal: Principal) throws -> ZoneKey {
        let database = try database(container: container, scope: scope, owner: owner, principal: principal)
        if let problem = NameRules.problem(with: zoneName) {
            throw WireError(.invalidArguments, "The zone name \(problem).")
        }
        if database.scope == .shared {
            throw WireError(
                .permissionFailure,
                "Zones of the shared database belong to their owners: only an owner creates, deletes or shares them. A participant leaves with DELETE …/databases/shared/zones/\(zoneName)/share?owner=<owner>.")
        }
        return ZoneKey(database: database, zoneName: zoneName)
    }

    /// The user charged for writes to a database: the owner of a private database (also when
    /// a participant writes to a zone shared from it); the writer in the public database,
    /// which has no owner, so that no user stores more there than their own quota allows.
    package func quotaUser(for database: DatabaseKey, writer: Principal) -> Int64? {
        switch database.scope {
        case .private: database.ownerID
        case .public: writer.userID
        case .shared: nil  // writes reach shared zones through their owner's private key
        }
    }
}
