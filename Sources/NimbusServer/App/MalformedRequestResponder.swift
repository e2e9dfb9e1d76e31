import NIOCore
import NIOHTTP1
import NimbusWire

/// Answers a request the HTTP decoder cannot parse and closes its connection.
///
/// Hummingbird turns off NIO's protocol error handler and answers parse errors itself, but
/// only once the first request of a connection has passed the WebSocket upgrade handler: a
/// malformed first request (an HTTP/0.9 request line, a NUL in a header, `Content-Length: -1`,
/// 5,000 headers…) would otherwise hold its connection, unanswered, until the client leaves.
/// Sitting right after the decoder, this handler answers every parse error:
///
/// - `414 URI Too Long` when the request line overflowed the decoder's limit,
/// - `431 Request Header Fields Too Large` when the headers did (size or count),
/// - `400 Bad Request` for anything else,
///
/// each with `Connection: close` and a JSON error body. It then closes its side and gives the
/// client ``lingerTimeout`` to read the answer before closing the connection (closing with
/// unread input would reset the connection and lose the answer). A parse error while a
/// request is being answered (a body cut short, a malformed pipelined request) is passed on:
/// Hummingbird's handler, which owns the connection from its first request on, answers it.
/// The `101` of a WebSocket upgrade removes it, once flushed.
///
/// For example:
/// ```swift
/// let decoder = try channel.pipeline.syncOperations.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
/// try channel.pipeline.syncOperations.addHandler(MalformedRequestResponder(), position: .after(decoder.handler))
/// ```
final class MalformedRequestResponder: ChannelDuplexHandler, RemovableChannelHandler {
    /// Request parts, and raw bytes once the decoder has left for a WebSocket upgrade: read as
    /// `Any` so that neither traps.
    typealias InboundIn = Any
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// How long a closing connection waits for the client to read the answer and leave.
    static let lingerTimeout = TimeAmount.seconds(2)

    /// Requests whose head came in and whose response has not ended.
    private var unansweredRequests = 0
    private var answered = false
    private var lingerTimer: Scheduled<Void>?
    /// Set by a `101` response: the handler leaves once it is flushed (leaving during the
    /// write of a `writeAndFlush` would drop its flush).
    private var upgraded = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        if unansweredRequests > 0 {
            // A request is being answered: its body (or the next request) is what failed.
            // Hummingbird's handler sees the error through its body stream, classifies it
            // (a client that hung up mid-body is a 499, not a 400) and closes the connection.
            context.fireErrorCaught(error)
            return
        }
        guard !answered else { return }
        answered = true
        respond(context, Self.answer(for: parseError, inRequestLine: Self.inRequestLine(context)))
    }

    /// Writes the error response, then lingers and closes.
    private func respond(_ context: ChannelHandlerContext, _ answer: (HTTPResponseStatus, String)) {
        let (status, message) = answer
        var body = context.channel.allocator.buffer(capacity: 160)
        body.writeString(Self.errorJSON(code: .invalidArguments, message: message))
        let headers = HTTPHeaders([
            ("Connection", "close"), ("Content-Type", "application/json; charset=utf-8"), ("Content-Length", "\(body.readableBytes)"),
        ])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            self.linger(loopBound.value)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head? = unwrapInboundIn(data) as? HTTPServerRequestPart { unansweredRequests += 1 }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status == .switchingProtocols:
            upgraded = true
            context.write(data, promise: promise)
        case .head, .body:
            context.write(data, promise: promise)
        case .end:
            unansweredRequests = max(0, unansweredRequests - 1)
            context.write(data, promise: promise)
        }
    }

    func flush(context: ChannelHandlerContext) {
        context.flush()
        if upgraded {
            upgraded = false
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        lingerTimer?.cancel()
        lingerTimer = nil
    }

    /// Closes the output (the client reads the answer, then the end of the stream) and the
    /// whole connection when the client leaves or ``lingerTimeout`` passes.
    private func linger(_ context: ChannelHandlerContext) {
        context.close(mode: .output, promise: nil)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        lingerTimer = context.eventLoop.assumeIsolated().scheduleTask(in: Self.lingerTimeout) {
            loopBound.value.close(promise: nil)
        }
    }

    /// The decoder's limit on one field, the URL included (Hummingbird's default).
    static let maximumFieldBytes = 80 * 1024

    /// Whether the request line alone passed the decoder's limit, as the
    /// ``RequestHeadTimeout`` in front of the decoder counted its raw bytes.
    private static func inRequestLine(_ context: ChannelHandlerContext) -> Bool {
        guard let head = try? context.pipeline.syncOperations.handler(type: RequestHeadTimeout.self) else { return false }
        return head.requestLineLength >= maximumFieldBytes
    }

    /// The status and message for a parse error.
    static func answer(for error: HTTPParserError, inRequestLine: Bool) -> (HTTPResponseStatus, String) {
        switch error {
        case .headerOverflow where inRequestLine:
            return (.uriTooLong, "The request line is too long; URLs are limited to 80 KB.")
        case .headerOverflow:
            return (.requestHeaderFieldsTooLarge, "The request's headers are too large: at most 80 KB and 1,000 fields.")
        default:
            return (.badRequest, "The request is not valid HTTP/1.1 (\(error)); the connection is closed.")
        }
    }

    /// `{"error":{"code":…,"message":…}}`, as every other failure is answered.
    static func errorJSON(code: WireError.Code, message: String) -> String {
        let escaped = message.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return #"{"error":{"code":"\#(code.rawValue)","message":"\#(escaped)"}}"#
    }
}
