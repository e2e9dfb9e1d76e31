import NimbusWire

/// What a route is about to do in a zone.
package enum ZoneIntent: Sendable {
    /// Fetch changes or look records up.
    case read
    /// Save or delete records.
    case write
}

extension ServerServices {
    /// The zone a record or change route addresses, as the zone where its records live.
    ///
    /// In the private and public databases that is ``zone(container:scope:owner:zoneName:principal:)``.
    /// In the shared database the zone is named by `?owner=` and its name, and resolves to the
    /// owner's private zone once the caller is a participant who accepted the share
    /// (server-0025: an invited, removed or departed one gets `zoneNotFound`) and whose permission allows `intent`;
    /// every rule of the owner's zone (limits, save policies, quota) then applies unchanged.
    ///
    /// For example:
    /// ```swift
    /// let key = try await services.accessibleZone(
    ///     container: "app", scope: "shared", owner: "alice", zoneName: "trip", principal: bob, intent: .write)
    /// ```
    /// - Throws: `invalidArguments` for bad names or a missing owner; `zoneNotFound` when the
    ///   zone is not shared with the caller; `permissionFailure` for a write by a `readOnly`
    ///   participant; and the errors of ``zone(container:scope:owner:zoneName:principal:)``.
    package func accessibleZone(
        container: String, scope: String, owner: String?, zoneName: String, principal: Principal, intent: ZoneIntent
    ) async throws -> ZoneKey {
        let database = try database(container: container, scope: scope, owner: nil, principal: principal)
        guard database.scope == .shared else {
            return try zone(container: container, scope: scope, owner: owner, zoneName: zoneName, principal: principal)
        }
        if let problem = NameRules.problem(with: zoneName) {
            throw WireError(.invalidArguments, "The zone name \(problem).")
        }
        guard let owner, !owner.isEmpty else {
            throw WireError(.invalidArguments, "A zone of the shared database is named by its owner too: add ?owner=<user name>.")
        }
        guard owner != principal.userName else {
            throw WireError(.zoneNotFound, "Your own zones are in your private database, not in your shared one.")
        }
        guard let grant = try await storage.sharedZoneGrant(
            container: container, ownerName: owner, zoneName: zoneName, userID: principal.userID)
        else {
            throw WireError(.zoneNotFound, "No zone '\(zoneName)' of '\(owner)' is shared with '\(principal.userName)' in '\(container)'.")
        }
        if intent == .write, grant.permission != .readWrite {
            throw WireError(
                .permissionFailure,
                "'\(principal.userName)' may only read zone '\(zoneName)' of '\(owner)' (\(grant.permission.rawValue)); the owner can grant readWrite.")
        }
        return grant.zone
    }
}
