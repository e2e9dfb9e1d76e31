import Hummingbird
import NimbusWire

/// `GET`, `PUT` and `DELETE …/zones/{zone}/share`: the share of a zone.
///
/// In the private database the owner reads, saves (creates or replaces) and deletes the
/// share of one of their zones; their answers carry the share's URL. In the shared database a
/// participant who accepted reads the share (`?owner=` names the owner; no URL) and leaves it
/// with `DELETE`; saving is the owner's alone.
struct ShareRoutes {
    let services: ServerServices

    func register(on group: RouterGroup<NimbusRequestContext>) {
        group.get("zones/:zone/share") { request, context in
            let principal = try context.requirePrincipal()
            let key = try await shareZone(request: request, context: context, participantsMay: true)
            guard let share = try await services.storage.share(of: key) else { throw StorageErrors.notShared(key) }
            let owner = key.database.ownerID == principal.userID
            return try JSONResponse.make(owner ? share.ownerWire : share.participantWire(viewer: principal.userID))
        }
        group.put("zones/:zone/share") { request, context in
            let principal = try context.requirePrincipal()
            let key = try await shareZone(request: request, context: context, participantsMay: false)
            var body = try await JSONResponse.decode(SaveShareRequest.self, from: request, limit: 64 * 1024)
            body.participants = body.participants.map { ShareParticipant(userName: $0.userName.nfc, permission: $0.permission) }
            let members = try await ShareRequestValidator(storage: services.storage).members(of: body, owner: principal)
            let outcome = try await services.storage.saveShare(
                key, participants: members, publicPermission: body.publicPermission, now: services.clock.now())
            return try JSONResponse.make(outcome.share.ownerWire, status: outcome.created ? .created : .ok)
        }
        group.delete("zones/:zone/share") { request, context in
            let principal = try context.requirePrincipal()
            let key = try await shareZone(request: request, context: context, participantsMay: true)
            if key.database.ownerID == principal.userID && key.database.scope == .private {
                try await services.storage.deleteShare(key, now: services.clock.now())
            } else {
                try await services.storage.leaveShare(key, userID: principal.userID, now: services.clock.now())
            }
            return Response(status: .noContent)
        }
    }

    /// The owner's private zone a share route addresses. Participants reach it through the
    /// shared database when `participantsMay`; the public database has no shares.
    private func shareZone(request: Request, context: NimbusRequestContext, participantsMay: Bool) async throws -> ZoneKey {
        let database = try context.databaseKey(services, request: request)
        switch database.scope {
        case .private:
            return try context.zoneKey(services, request: request)
        case .shared where participantsMay:
            return try await context.accessibleZoneKey(services, request: request, intent: .read)
        case .shared:
            throw WireError(.permissionFailure, "Only the owner of a zone changes its share, from their private database.")
        case .public:
            throw WireError(.permissionFailure, "Zones of the public database cannot be shared; every user already reaches them.")
        }
    }
}
