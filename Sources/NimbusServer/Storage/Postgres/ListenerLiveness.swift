import NIOConcurrencyHelpers

/// Whether the push listener's connection still hears the change channel, judged by this
/// process's own heartbeats.
///
/// A listening connection can stop delivering without failing: a `LISTEN` that never
/// completes, a peer that vanished without closing the socket, a backend that stopped
/// answering. ``PostgresHeartbeat`` sends a numbered heartbeat on the channel through the
/// pool and reports each one PostgreSQL accepted (``accepted(_:at:)``); the listener reports
/// each one of its own it hears back (``heard(_:)``). A heartbeat accepted longer ago than
/// the silence limit, with neither it nor a later one heard since, means the listening
/// connection is dead. While PostgreSQL refuses heartbeats nothing is accepted, so an outage
/// alone never condemns the connection; the listener's own errors cover that case.
///
/// For example:
/// ```swift
/// let seq = liveness.nextHeartbeat()
/// liveness.accepted(seq, at: .now)
/// liveness.unansweredAge(now: .now)   // > limit: reconnect
/// ```
final class ListenerLiveness: Sendable {
    private struct State {
        var nextSeq: UInt64 = 1
        var heard: UInt64 = 0
        /// Accepted heartbeats not heard back yet, oldest first.
        var unanswered: [(seq: UInt64, acceptedAt: ContinuousClock.Instant)] = []
    }

    /// Identifies this process's heartbeats among those of every process on the database.
    let instance: String
    private let state = NIOLockedValueBox(State())

    init(instance: String) {
        self.instance = instance
    }

    /// The number of the next heartbeat to send.
    func nextHeartbeat() -> UInt64 {
        state.withLockedValue { state in
            defer { state.nextSeq += 1 }
            return state.nextSeq
        }
    }

    /// PostgreSQL committed heartbeat `seq` at `instant`: the listener should hear it soon.
    func accepted(_ seq: UInt64, at instant: ContinuousClock.Instant) {
        state.withLockedValue { state in
            guard seq > state.heard else { return }
            state.unanswered.append((seq, instant))
        }
    }

    /// The listener heard heartbeat `seq`: it and every earlier one are answered.
    func heard(_ seq: UInt64) {
        state.withLockedValue { state in
            state.heard = max(state.heard, seq)
            state.unanswered.removeAll { $0.seq <= seq }
        }
    }

    /// A new listening connection starts: heartbeats sent before it could not reach it.
    func listeningStarted() {
        state.withLockedValue { $0.unanswered.removeAll() }
    }

    /// How long the oldest unanswered heartbeat has waited, or `nil` when none waits.
    func unansweredAge(now: ContinuousClock.Instant) -> Duration? {
        state.withLockedValue { state in state.unanswered.first.map { now - $0.acceptedAt } }
    }
}

/// The text of a heartbeat notification: `heartbeat:<instance>:<seq>`. It is not JSON, so it
/// can never be taken for a ``ChangeEvent``, and the listener drops it before delivery.
enum HeartbeatPayload {
    static let prefix = "heartbeat:"

    static func make(instance: String, seq: UInt64) -> String {
        "\(prefix)\(instance):\(seq)"
    }

    /// The instance and number of a heartbeat payload, or `nil` for any other payload.
    static func parse(_ payload: String) -> (instance: String, seq: UInt64)? {
        guard payload.hasPrefix(prefix) else { return nil }
        let parts = payload.dropFirst(prefix.count).split(separator: ":")
        guard parts.count == 2, let seq = UInt64(parts[1]) else { return nil }
        return (String(parts[0]), seq)
    }
}
