import NIOCore

/// Closes a connection whose request head (request line and headers) is not complete within
/// `timeout` of its first byte: the slow-drip ("slowloris") client that sends a header line
/// every few seconds keeps no connection, file descriptor or memory for long.
///
/// It reads the raw bytes in front of the HTTP decoder: a head ends at its empty line
/// (`\n\r\n`, or `\n\n` which lenient parsers accept). Then it waits, without a clock, until
/// the server's response goes out (the body has its own deadline, ``RequestBodyTimeout``); the
/// next byte after that starts the next head's clock. A `101 Switching Protocols` response
/// removes it: push sockets have their own pings.
///
/// For example:
/// ```swift
/// try channel.pipeline.syncOperations.addHandler(RequestHeadTimeout(timeout: .seconds(20)))
/// ```
final class RequestHeadTimeout: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private enum State {
        /// Between requests: the next byte starts a head.
        case waitingForRequest
        /// Inside a head; `previous` holds its last two bytes, for an end that spans reads.
        case readingHead(previous: [UInt8])
        /// The head is in; the response has not started.
        case awaitingResponse
    }

    private let timeout: TimeAmount
    private var state = State.waitingForRequest
    /// The bytes of the current head's request line read so far (all of them when no line
    /// end has come yet), so that ``MalformedRequestResponder`` can tell a URL too long from
    /// headers too large.
    private(set) var requestLineLength = 0
    private var requestLineEnded = false
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        switch state {
        case .waitingForRequest:
            start(context)
            scan(buffer, after: [])
        case .readingHead(let previous):
            scan(buffer, after: previous)
        case .awaitingResponse:
            break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .byteBuffer(let buffer) = unwrapOutboundIn(data), let status = Self.responseStatus(buffer) {
            if status == 101 {
                context.write(data, promise: promise)
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                return
            }
            if status >= 200, case .awaitingResponse = state {
                state = .waitingForRequest
            }
        }
        context.write(data, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancel()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancel()
        context.fireChannelInactive()
    }

    /// Moves to `awaitingResponse` when the head's empty line is in `buffer` (or spans from
    /// `previous` into it); otherwise keeps the last two bytes seen.
    private func scan(_ buffer: ByteBuffer, after previous: [UInt8]) {
        let found = buffer.withUnsafeReadableBytes { bytes -> Bool in
            var last = previous
            if !requestLineEnded {
                if let end = bytes.firstIndex(of: UInt8(ascii: "\n")) {
                    requestLineLength += end
                    requestLineEnded = true
                } else {
                    requestLineLength += bytes.count
                }
            }
            for byte in bytes {
                if byte == UInt8(ascii: "\n"), last.last == UInt8(ascii: "\n")
                    || (last.count == 2 && last[0] == UInt8(ascii: "\n") && last[1] == UInt8(ascii: "\r"))
                {
                    return true
                }
                last.append(byte)
                if last.count > 2 { last.removeFirst() }
            }
            state = .readingHead(previous: last)
            return false
        }
        if found {
            cancel()
            state = .awaitingResponse
        }
    }

    private func start(_ context: ChannelHandlerContext) {
        state = .readingHead(previous: [])
        requestLineLength = 0
        requestLineEnded = false
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            let context = loopBound.value
            context.channel.close(promise: nil)
        }
    }

    private func cancel() {
        timer?.cancel()
        timer = nil
    }

    /// The status of an HTTP/1 response head at the start of `buffer`, or `nil` when the buffer
    /// is not one (a body part).
    private static func responseStatus(_ buffer: ByteBuffer) -> Int? {
        guard buffer.readableBytes >= 12,
            let prefix = buffer.getString(at: buffer.readerIndex, length: 12),
            prefix.hasPrefix("HTTP/1.")
        else { return nil }
        return Int(prefix.dropFirst(9).prefix(3))
    }
}
