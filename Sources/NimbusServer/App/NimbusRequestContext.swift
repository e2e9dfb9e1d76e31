import Hummingbird
import HummingbirdWebSocket
import NIOCore
import NimbusWire

/// The request context of every route: Hummingbird's core storage, the WebSocket handler
/// slot, and the authenticated caller.
package struct NimbusRequestContext: RequestContext, WebSocketRequestContext {
    package var coreContext: CoreRequestContextStorage
    package let webSocket: WebSocketHandlerReference<Self>
    /// The caller, set by ``AuthMiddleware``.
    package var principal: Principal?
    /// The connection, so that a refused WebSocket upgrade can answer before Hummingbird's
    /// empty 400 (see ``PushRoutes``).
    package let channel: any Channel
    /// What the request log learns from the routes (caller, records up and down).
    package let note = RequestNote()

    package init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.webSocket = .init()
        self.principal = nil
        self.channel = source.channel
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
