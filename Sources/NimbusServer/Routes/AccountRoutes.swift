import Hummingbird
import NimbusWire

/// `GET /v1/containers/{container}/account`: who the bearer token belongs to.
struct AccountRoutes {
    let services: ServerServices

    func register(on group: RouterGroup<NimbusRequestContext>) {
        group.get("account") { _, context in
            let principal = try context.requirePrincipal()
            return try JSONResponse.make(AccountResponse(userName: principal.userName, deviceID: principal.deviceID))
        }
    }
}
