import Hummingbird
import NimbusWire

/// `GET /v1/containers/{container}/account`: who the bearer token belongs to.
struct AccountRoutes {
    let services: ServerServices

    func register(on group: RouterGroup<NimbusRequestContext>) {
        group.get("account") { _, context in
            let principal = try context.requirePrincipal()
            // The answer does not depend on the container, but a name no other route takes is refused here too.
            let container = try context.pathParameter("container")
            if let problem = NameRules.problem(with: container) {
                throw WireError(.invalidArguments, "The container name \(problem).")
            }
            return try JSONResponse.make(AccountResponse(userName: principal.userName, deviceID: principal.deviceID))
        }
    }
}
