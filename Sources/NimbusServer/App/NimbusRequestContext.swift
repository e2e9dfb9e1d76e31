import Hummingbird
import HummingbirdWebSocket
import NimbusWire

/// The request context of every route: Hummingbird's core storage, the WebSocket handler
/// slot, and the authenticated caller.
package struct NimbusRequestContext: RequestContext, WebSocketRequestContext {
    package var coreContext: CoreRequestContextStorage
    package let webSocket: WebSocketHandlerReference<Self>
    /// The caller, set by ``AuthMiddleware``.
    package var principal: Principal?

    package init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.webSocket = .init()
        self.principal = nil
    }

    /// Bodies are read by the routes with their own limits.
    package var maxUploadSize: Int { ModifyRecordsRequest.maximumBodyBytes }

    /// The caller.
    /// - Throws: `notAuthenticated` when the route ran without authentication.
    package func requirePrincipal() throws(WireError) -> Principal {
        guard let principal else { throw WireError(.notAuthenticated, "This route needs a bearer token.") }
        return principal
    }
}
