import Foundation
import NIOConcurrencyHelpers
import ServiceLifecycle

/// Server-sent events for the console's live updates: each committed change is announced to
/// every open `/console/events` stream, and a comment every 15 seconds keeps proxies from
/// closing an idle stream. Streams end when the server shuts down.
///
/// For example:
/// ```swift
/// let stream = events.subscribe()
/// for await message in stream.messages { write(message) }
/// ```
package final class ConsoleEvents: Sendable {
    /// An open stream; ``ConsoleEvents/cancel(_:)`` it when the browser goes away.
    package struct Stream: Sendable {
        package let id: UUID
        package let messages: AsyncStream<String>
    }

    private let continuations = NIOLockedValueBox<[UUID: AsyncStream<String>.Continuation]>([:])
    private let finished = NIOLockedValueBox(false)
    /// At most this many streams at once; older ones are ended first.
    package static let maximumStreams = 64

    package init() {}

    /// Opens a stream. It starts with a `hello` event, so the page knows it is live.
    package func subscribe() -> Stream {
        let id = UUID()
        let (messages, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(256))
        continuation.yield("retry: 3000\nevent: hello\ndata: {}\n\n")
        let keepAlive = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(15))
                continuation.yield(": keep-alive\n\n")
            }
        }
        continuation.onTermination = { [weak self] _ in
            keepAlive.cancel()
            self?.continuations.withLockedValue { _ = $0.removeValue(forKey: id) }
        }
        if finished.withLockedValue({ $0 }) {
            continuation.finish()
        } else {
            let evicted: AsyncStream<String>.Continuation? = continuations.withLockedValue { continuations in
                continuations[id] = continuation
                guard continuations.count > Self.maximumStreams, let first = continuations.keys.first(where: { $0 != id }) else { return nil }
                return continuations.removeValue(forKey: first)
            }
            evicted?.finish()
        }
        return Stream(id: id, messages: messages)
    }

    /// Ends a stream.
    package func cancel(_ stream: Stream) {
        continuations.withLockedValue { $0.removeValue(forKey: stream.id) }?.finish()
    }

    /// Sends an event to every open stream.
    /// - Parameters:
    ///   - event: The event's name.
    ///   - json: Its data, one line of JSON.
    package func broadcast(event: String, json: String) {
        let message = "event: \(event)\ndata: \(json.replacingOccurrences(of: "\n", with: " "))\n\n"
        for continuation in continuations.withLockedValue({ Array($0.values) }) { continuation.yield(message) }
    }

    /// The number of open streams.
    package var count: Int { continuations.withLockedValue { $0.count } }

    /// Ends every stream (shutdown); later subscriptions end at once.
    package func finishAll() {
        finished.withLockedValue { $0 = true }
        let all = continuations.withLockedValue { continuations in
            defer { continuations.removeAll() }
            return Array(continuations.values)
        }
        for continuation in all { continuation.finish() }
    }
}

/// Ends the console's live-update streams when the server shuts down, so that graceful
/// shutdown does not wait for browsers to leave.
struct ConsoleShutdownService: Service {
    let events: ConsoleEvents

    func run() async throws {
        try? await gracefulShutdown()
        events.finishAll()
    }
}
