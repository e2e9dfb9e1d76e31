import NimbusWire

/// What saving a share does to one user's membership (server-0025), the same for every backend.
package enum ShareSaveStep: Hashable, Sendable {
    /// Nothing changes.
    case none
    /// Insert (or turn a row of an ended share into) an invitation: no access until accepted.
    case invite(SharePermission)
    /// Change the row's permission, state or public mark; its shared database is unchanged.
    case update(permission: SharePermission, state: MembershipState, isPublic: Bool)
    /// Take an accepted participant out of their shared database: state `removed`, devices told.
    case revoke
    /// State `removed` for a row that is not in a shared database (invited or left).
    case markRemoved

    /// Plans the step for one user.
    /// - Parameters:
    ///   - current: The user's membership row (not ended), if any.
    ///   - named: The permission the owner names the user with now, or `nil` when left out.
    ///   - publicPermission: The share's new public permission.
    package static func plan(current: ShareAdmission.Membership?, named: SharePermission?, publicPermission: SharePermission) -> ShareSaveStep {
        guard let current else {
            return named.map { .invite($0) } ?? .none
        }
        if let named {
            // Named: accepted and left keep their state, invitations stay, removed are invited again.
            let state: MembershipState = current.state == .removed || current.state == .ended ? .invited : current.state
            if state == current.state, named == current.permission, !current.isPublic { return .none }
            return .update(permission: named, state: state, isPublic: false)
        }
        switch (current.state, current.isPublic) {
        case (.accepted, false):
            return .revoke
        case (.accepted, true):
            if publicPermission == SharePermission.none { return .revoke }
            return publicPermission == current.permission ? .none : .update(permission: publicPermission, state: .accepted, isPublic: true)
        case (.left, true):
            return publicPermission == SharePermission.none ? .markRemoved : .none
        case (.invited, _), (.left, false):
            return .markRemoved
        case (.removed, _), (.ended, _):
            return .none
        }
    }
}
