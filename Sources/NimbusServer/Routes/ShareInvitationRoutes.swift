import Hummingbird
import NimbusWire

/// The routes of share URLs and listings (server-0025):
/// `GET /v1/shares/{secret}` (what the URL offers the caller), `POST /v1/shares/{secret}/accept`
/// and `GET /v1/containers/{container}/shares` (the caller's shares).
///
/// A secret that is unknown, or that offers the caller nothing, is `unknownItem` with one
/// message, so a guessed URL learns nothing.
struct ShareInvitationRoutes {
    let services: ServerServices

    /// Registers the URL routes on a group authenticated like the container routes.
    func registerURLs(on group: RouterGroup<NimbusRequestContext>) {
        group.get(":secret") { _, context in
            let principal = try context.requirePrincipal()
            let secret = try context.pathParameter("secret")
            guard let metadata = try await services.storage.shareMetadata(
                secret: secret, userID: principal.userID, userName: principal.userName)
            else { throw Self.noShare }
            return try JSONResponse.make(metadata)
        }
        group.post(":secret/accept") { _, context in
            let principal = try context.requirePrincipal()
            let secret = try context.pathParameter("secret")
            guard let metadata = try await services.storage.acceptShare(
                secret: secret, userID: principal.userID, userName: principal.userName, now: services.clock.now())
            else { throw Self.noShare }
            return try JSONResponse.make(metadata)
        }
    }

    /// Registers `GET …/shares` on the container group.
    func registerListing(on group: RouterGroup<NimbusRequestContext>) {
        group.get("shares") { _, context in
            let principal = try context.requirePrincipal()
            let container = try context.pathParameter("container")
            if let problem = NameRules.problem(with: container) {
                throw WireError(.invalidArguments, "The container name \(problem).")
            }
            let listing = try await services.storage.shares(container: container, userID: principal.userID, userName: principal.userName)
            return try JSONResponse.make(ShareListResponse(
                owned: listing.owned.map(\.ownerWire),
                participating: listing.participating.map { $0.participantWire(viewer: principal.userID) }))
        }
    }

    /// The one answer for every URL that offers the caller nothing.
    static var noShare: WireError {
        WireError(.unknownItem, "No share at this URL is open to you: check the URL with the share's owner.")
    }
}
