import NIOHTTPTypes
import NIOCore

/// Closes a connection whose request body arrives too slowly: the body must be complete within
/// `timeout` of its head, plus one second for every `minimumRate` bytes received (the rule of
/// Apache's `mod_reqtimeout`, `body=20,MinRate=500` by default), so a large upload on a slow
/// but steady link goes through while a drip of a few bytes a second is cut off.
///
/// It sits after the HTTP decoder of plain HTTP connections (push sockets never get it); the
/// time the server then takes to answer is not counted.
///
/// For example:
/// ```swift
/// HTTP1Channel.Configuration(additionalChannelHandlers: [RequestBodyTimeout(timeout: .seconds(20), minimumRate: 500)])
/// ```
final class RequestBodyTimeout: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let timeout: TimeAmount
    private let minimumRate: Int64
    private var started: NIODeadline?
    private var received: Int64 = 0
    private var timer: Scheduled<Void>?

    /// - Parameters:
    ///   - timeout: The time a body may take beyond what its size earns.
    ///   - minimumRate: The bytes per second that earn one more second.
    init(timeout: TimeAmount, minimumRate: Int) {
        self.timeout = timeout
        self.minimumRate = Int64(max(1, minimumRate))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            started = .now()
            received = 0
            schedule(context, at: deadline)
        case .body(let buffer):
            received += Int64(buffer.readableBytes)
        case .end:
            started = nil
            cancel()
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancel()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancel()
        context.fireChannelInactive()
    }

    /// When the body in progress must be complete, given what has arrived so far.
    private var deadline: NIODeadline {
        (started ?? .now()) + timeout + .seconds(received / minimumRate)
    }

    /// Fires at `when`; closes the connection if the body is still short of its (possibly
    /// extended) deadline then, else waits again.
    private func schedule(_ context: ChannelHandlerContext, at when: NIODeadline) {
        cancel()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: when) {
            let (handler, context) = loopBound.value
            guard handler.started != nil else { return }
            let deadline = handler.deadline
            if deadline > .now() {
                handler.schedule(context, at: deadline)
            } else {
                context.channel.close(promise: nil)
            }
        }
    }

    private func cancel() {
        timer?.cancel()
        timer = nil
    }
}
