import Foundation
import NIOConcurrencyHelpers

/// The server's clock, injected so tests control time.
///
/// For example:
/// ```swift
/// let clock = ServerClock.manual(start: 1_700_000_000_000)
/// clock.advance(by: 60_000)
/// ```
public struct ServerClock: Sendable {
    /// Milliseconds since 1970.
    public var now: @Sendable () -> Int64

    /// Creates a clock from a reading function.
    public init(now: @escaping @Sendable () -> Int64) {
        self.now = now
    }

    /// The system clock.
    public static let system = ServerClock { Int64(Date().timeIntervalSince1970 * 1000) }
}

/// A clock tests move by hand.
public final class ManualClock: Sendable {
    private let value: NIOLockedValueBox<Int64>

    /// Creates a clock reading `start` milliseconds since 1970.
    public init(start: Int64) { value = NIOLockedValueBox(start) }

    /// Moves the clock forward.
    public func advance(by milliseconds: Int64) { value.withLockedValue { $0 += milliseconds } }

    /// The clock as a ``ServerClock``.
    public var clock: ServerClock { ServerClock { [value] in value.withLockedValue { $0 } } }
}
