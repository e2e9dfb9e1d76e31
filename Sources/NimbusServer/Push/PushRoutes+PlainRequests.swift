import Hummingbird
import NimbusWire

extension PushRoutes {
    /// `GET …/databases/{database}/push` without `Upgrade: websocket`: upgrades go to the
    /// WebSocket router, so this plain request reaches the HTTP router, where it is
    /// authenticated like every `/v1` route (401 without a valid token), its database
    /// checked (400, 403), and then answered 426 with `Upgrade: websocket`.
    func registerPlainRequests(on group: RouterGroup<NimbusRequestContext>) {
        group.get("push") { request, context -> Response in
            _ = try context.databaseKey(services, request: request)
            throw ServerRoutes.upgradeRequired(request)
        }
    }
}
