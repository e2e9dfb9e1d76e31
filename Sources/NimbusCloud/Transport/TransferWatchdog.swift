import Foundation
import Synchronization

/// Fails a request whose bytes stop moving, without bounding how long a moving one may take.
///
/// While the body goes out, its next chunk must be taken (the connection drained the last
/// ones) within the idle timeout. Once it is all out, the answer must come within the idle
/// timeout plus the time the bytes still in the sockets' buffers need to pass the link at
/// ``slowestRate`` (at most ``largestBuffered`` of them): a socket takes a body whole when
/// its buffers are large, and the server answers only once it has it all.
///
/// For example:
/// ```swift
/// let watchdog = TransferWatchdog(idle: .seconds(30), bodyBytes: data.count)
/// let body = DataChunks(data: data, onPull: watchdog.progressed, onEnd: watchdog.bodyEnded)
/// let answer = try await watchdog.run { try await send(body) }
/// ```
final class TransferWatchdog: Sendable {
    /// The slowest link the wait for an answer allows for, in bytes per second.
    static let slowestRate = 8 * 1024
    /// The most bytes the sockets on the way may hold once the body is out.
    static let largestBuffered = 8 * 1024 * 1024

    let idle: Duration
    let bodyBytes: Int
    private let clock = ContinuousClock()
    private let state: Mutex<(last: ContinuousClock.Instant, bodyEnded: Bool)>

    init(idle: Duration, bodyBytes: Int) {
        self.idle = idle
        self.bodyBytes = bodyBytes
        state = Mutex((clock.now, false))
    }

    /// The body's next chunk was taken.
    @Sendable func progressed() { state.withLock { $0.last = clock.now } }

    /// The body is all out.
    @Sendable func bodyEnded() { state.withLock { $0 = (clock.now, true) } }

    /// How long the transfer may stay as it is now.
    var allowance: Duration {
        let ended = state.withLock { $0.bodyEnded }
        guard ended else { return idle }
        return idle + .seconds(Double(min(bodyBytes, Self.largestBuffered)) / Double(Self.slowestRate))
    }

    /// Whether the transfer has stalled.
    var stalled: Bool {
        let last = state.withLock { $0.last }
        return clock.now - last > allowance
    }

    struct Stalled: Error {}

    /// Runs `operation` and cancels it when the transfer stalls.
    /// - Throws: ``Stalled`` when it stalled; what `operation` throws otherwise.
    func run<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask { [self] in
                while !stalled {
                    try await Pause.sleep(for: min(idle / 4, .seconds(1)))
                }
                throw Stalled()
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                if let result { return result }
            }
            throw Stalled()
        }
    }
}
