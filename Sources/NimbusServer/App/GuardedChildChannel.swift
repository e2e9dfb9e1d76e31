import Hummingbird
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Wraps the server's child channel (HTTP/1 with the WebSocket upgrade) with the two guards
/// Hummingbird does not offer before the first request arrives:
///
/// - an **idle timeout**: a connection with no byte read or written for
///   ``ServerConfiguration/idleTimeout`` is closed, including one that never sends a request
///   (push sockets stay open: the server pings them every 30 s);
/// - a **per-address connection cap**: the connections beyond
///   ``ServerConfiguration/maximumConnectionsPerAddress`` from one IP address are closed at once.
///
/// For example:
/// ```swift
/// let server = HTTPServerBuilder { responder in
///     GuardedChildChannel(inner: try inner.buildChildChannel(responder), limiter: limiter, idleTimeout: .seconds(60))
/// }
/// ```
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner
    let limiter: ConnectionLimiter
    let idleTimeout: Duration

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let address = channel.remoteAddress?.ipAddress ?? "unknown"
        guard limiter.open(address) else {
            logger.notice("connection refused: too many from one address", metadata: ["address": "\(address)"])
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
        }
        channel.closeFuture.whenComplete { _ in limiter.close(address) }
        do {
            let nanoseconds = idleTimeout.components.seconds * 1_000_000_000 + idleTimeout.components.attoseconds / 1_000_000_000
            try channel.pipeline.syncOperations.addHandlers([
                IdleStateHandler(allTimeout: .nanoseconds(nanoseconds)), IdleCloser(),
            ])
        } catch {
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

/// Closes the connection on the idle event of the `IdleStateHandler` before it.
private final class IdleCloser: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
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
