import Foundation
import Hummingbird
import HummingbirdWSClient
import Logging
import NIOConcurrencyHelpers
import NimbusWire

/// A device's end of the push WebSocket, for tests and `nimbus bench-server`.
///
/// Messages are buffered with the instant they arrived, so latency measurements do not
/// depend on when the reader looks.
///
/// For example:
/// ```swift
/// let listener = PushListener.connect(url: "ws://127.0.0.1:8080/v1/containers/app/databases/private/push", token: token)
/// let hello = await listener.next(within: .seconds(5))
/// ```
package final class PushListener: Sendable {
    /// A received message and when it arrived.
    package struct Arrival: Sendable {
        package var message: PushMessage
        package var instant: ContinuousClock.Instant
    }

    private let buffer = NIOLockedValueBox<(arrivals: [Arrival], closed: Bool)>(([], false))
    private let task = NIOLockedValueBox<Task<Void, Never>?>(nil)

    private init() {}

    /// Connects in the background; messages arrive through ``next(within:)``.
    package static func connect(url: String, token: String, logger: Logger = Logger(label: "nimbus.push-listener")) -> PushListener {
        let listener = PushListener()
        let buffer = listener.buffer
        let task = Task {
            var headers = HTTPFields()
            headers[.authorization] = "Bearer \(token)"
            _ = try? await WebSocketClient.connect(
                url: url, configuration: .init(additionalHeaders: headers), logger: logger
            ) { inbound, _, _ in
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    let now = ContinuousClock.now
                    guard case .text(let text) = message,
                        let push = try? JSONDecoder().decode(PushMessage.self, from: Data(text.utf8))
                    else { continue }
                    buffer.withLockedValue { $0.arrivals.append(Arrival(message: push, instant: now)) }
                }
            }
            buffer.withLockedValue { $0.closed = true }
        }
        listener.task.withLockedValue { $0 = task }
        return listener
    }

    /// The next arrival, or `nil` when none arrives in time or the socket closed.
    package func nextArrival(within timeout: Duration) async -> Arrival? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let (arrival, closed) = buffer.withLockedValue { state -> (Arrival?, Bool) in
                if state.arrivals.isEmpty { return (nil, state.closed) }
                return (state.arrivals.removeFirst(), false)
            }
            if let arrival { return arrival }
            if closed { return nil }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }

    /// The next message, or `nil` when none arrives in time or the socket closed.
    package func next(within timeout: Duration) async -> PushMessage? {
        await nextArrival(within: timeout)?.message
    }

    /// Whether the server closed the socket (or it never opened).
    package var isClosed: Bool { buffer.withLockedValue { $0.closed } }

    /// Closes the socket.
    package func close() {
        task.withLockedValue { $0?.cancel() }
    }
}
