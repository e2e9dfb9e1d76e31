import Foundation
import Logging
import ServiceLifecycle

/// Listens on the `nimbus_changes` channel and delivers every committed change, from any
/// server process, to the devices connected to this one.
///
/// The listening connection is its own, outside the pool, and lives in a ``ListenSession``
/// that this service watches rather than awaits. It starts a new session when the current one
///
/// - ended (PostgreSQL closed the connection, restarted, refused to connect),
/// - has not completed `LISTEN` within the silence limit, or
/// - stopped hearing this process's heartbeats (``ListenerLiveness``): a heartbeat that
///   PostgreSQL accepted was not heard back within the silence limit.
///
/// The last two cover awaits that never return (postgres-nio 1.33 can leave a statement
/// written to a closing connection waiting forever, see
/// `docs/decisions/server-0007-errors-and-outages.md`) and connections that went silent
/// without closing. A stuck session is abandoned, never awaited, so nothing here waits for it.
/// Changes committed while no session listens are not pushed; devices catch up on their next
/// fetch or reconnect.
struct PostgresChangeListener: Service {
    let storage: PostgresStorage

    /// Why a session was given up.
    enum Verdict {
        case ended((any Error)?)
        case neverListened
        case silent(Duration)
    }

    func run() async throws {
        let logger = storage.logger
        try? await cancelWhenGracefulShutdown {
            var backoff = Duration.milliseconds(100)
            while !Task.isCancelled {
                let session = ListenSession.start(storage)
                let verdict: Verdict
                do {
                    verdict = try await watch(session)
                } catch {
                    session.abandon()
                    throw error
                }
                session.abandon()
                switch verdict {
                case .ended(let error):
                    logger.warning("postgres listener lost its connection; reconnecting", metadata: ["error": "\(error.map { "\($0)" } ?? "closed")"])
                case .neverListened:
                    logger.warning("postgres listener did not start listening in time; reconnecting")
                case .silent(let age):
                    logger.warning("postgres listener heard none of its heartbeats for \(age); reconnecting")
                }
                // Quick retries after a session that worked; slower ones while PostgreSQL stays away.
                backoff = session.listened ? .milliseconds(100) : min(backoff * 2, .seconds(5))
                try await Task.sleep(for: backoff)
            }
        }
    }

    /// Polls the session until it ends or looks dead. Throws `CancellationError` on shutdown.
    private func watch(_ session: ListenSession) async throws -> Verdict {
        let limit = storage.silenceLimit
        let tick = min(max(storage.heartbeatInterval / 4, .milliseconds(20)), .milliseconds(250))
        while true {
            try await Task.sleep(for: tick)
            let now = ContinuousClock.now
            switch session.phase {
            case .ended(let error):
                return .ended(error)
            case .starting(let since):
                if now - since > limit { return .neverListened }
            case .listening:
                if let age = storage.liveness.unansweredAge(now: now), age > limit { return .silent(age) }
            }
        }
    }
}
