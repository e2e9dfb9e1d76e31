import Hummingbird
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Wraps the server's child channel (HTTP/1 with the WebSocket upgrade) with the two guards
/// Hummingbird does not offer before the first request arrives:
///
/// - a **first-byte timeout**: a connection that sends nothing for
///   ``ServerConfiguration/idleTimeout`` is closed. Once bytes arrive, Hummingbird's own idle
///   timeout (set to the same value) takes over: it closes a keep-alive connection idle
///   between requests, never one whose request is still being answered; push sockets are
///   pinged every 30 s by the WebSocket handler;
/// - a **request head deadline** (``RequestHeadTimeout``): a request's headers must arrive
///   within ``ServerConfiguration/requestHeadTimeout`` of their first byte (the body has its
///   own deadline, ``RequestBodyTimeout``, after the HTTP decoder);
/// - an **answer to malformed requests** (``MalformedRequestResponder``, behind the HTTP
///   decoder): 400, 414 or 431, then the connection is closed;
/// - a **per-address connection cap**: the connections beyond
///   ``ServerConfiguration/maximumConnectionsPerAddress`` from one IP address are closed at once.
///
/// For example:
/// ```swift
/// let server = HTTPServerBuilder { responder in
///     GuardedChildChannel(inner: HTTP1WebSocketUpgradeChannel(…), limiter: limiter, idleTimeout: .seconds(60), requestHeadTimeout: .seconds(20))
/// }
/// ```
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner
    let limiter: ConnectionLimiter
    let idleTimeout: Duration
    let requestHeadTimeout: Duration

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress?.ipAddress ?? "unknown"
        guard limiter.open(address) else {
            logger.notice("connection refused: too many from one address", metadata: ["address": "\(address)"])
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
        }
        channel.closeFuture.whenComplete { _ in limiter.close(address) }
        do {
            try channel.pipeline.syncOperations.addHandler(FirstByteTimeout(timeout: TimeAmount(idleTimeout)))
            try channel.pipeline.syncOperations.addHandler(RequestHeadTimeout(timeout: TimeAmount(requestHeadTimeout)))
        } catch {
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            // After the inner setup, so that it sits right behind the HTTP decoder.
            let decoder = try channel.pipeline.syncOperations.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(MalformedRequestResponder(), position: .after(decoder.handler))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Closes the connection when no byte arrives within `timeout` of it opening; removes
/// itself at the first read.
private final class FirstByteTimeout: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let timeout: TimeAmount
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        timer?.cancel()
        timer = nil
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    private func start(_ context: ChannelHandlerContext) {
        guard timer == nil else { return }
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            loopBound.value.close(promise: nil)
        }
    }
}

/// Open connections per remote address, under a cap.
///
/// For example:
/// ```swift
/// let limiter = ConnectionLimiter(maximumPerAddress: 2)
/// limiter.open("10.0.0.1")   // true
/// ```
package final class ConnectionLimiter: Sendable {
    private let maximumPerAddress: Int
    private let counts = NIOLockedValueBox<[String: Int]>([:])

    /// - Parameter maximumPerAddress: The most connections one address may hold open.
    package init(maximumPerAddress: Int) {
        self.maximumPerAddress = maximumPerAddress
    }

    /// Counts a new connection; `false` (and nothing counted) when the address is at its cap.
    package func open(_ address: String) -> Bool {
        counts.withLockedValue { counts in
            let current = counts[address, default: 0]
            guard current < maximumPerAddress else { return false }
            counts[address] = current + 1
            return true
        }
    }

    /// Counts a closed connection.
    package func close(_ address: String) {
        counts.withLockedValue { counts in
            let remaining = counts[address, default: 1] - 1
            counts[address] = remaining > 0 ? remaining : nil
        }
    }

    /// The connections open from an address.
    package func openConnections(from address: String) -> Int {
        counts.withLockedValue { $0[address, default: 0] }
    }
}
