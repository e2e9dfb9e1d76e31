import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1
import NimbusWire

/// The answer to a refused push upgrade: the same `{"error":…}` JSON and status as any other
/// route (401 `notAuthenticated` for a bad token, 400, 403, 410…), instead of the empty 400
/// that hummingbird-websocket writes for every refusal.
///
/// The upgrade handler still holds the connection when the route refuses, so the response
/// is written on the channel in its HTTP/1 form, with `Connection: close`. Hummingbird then
/// writes its own empty 400 and closes the connection; a client has stopped reading after
/// the first response by then. (Half-closing the output first would drop that 400, but
/// makes hummingbird-websocket log an error for every refused upgrade.)
enum PushRefusal {
    /// Writes the error response for `error`.
    static func answer(_ error: any Error, request: Request, context: NimbusRequestContext) async {
        let failure = ErrorMiddleware.responseError(for: error, context: context, request: request)
        if let level = failure.logLevel {
            context.logger.log(level: level, "push upgrade failed", metadata: ["error": "\(String(reflecting: error))"])
        }
        guard let (headers, body) = try? ErrorMiddleware.rendered(failure, requestID: context.id) else { return }
        var head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: Int(failure.status.code)))
        for field in headers { head.headers.add(name: field.name.rawName, value: field.value) }
        head.headers.replaceOrAdd(name: "Content-Length", value: String(body.readableBytes))
        head.headers.replaceOrAdd(name: "Connection", value: "close")
        let channel = context.channel
        channel.write(HTTPServerResponsePart.head(head), promise: nil)
        channel.write(HTTPServerResponsePart.body(.byteBuffer(body)), promise: nil)
        try? await channel.writeAndFlush(HTTPServerResponsePart.end(nil)).get()
    }
}
