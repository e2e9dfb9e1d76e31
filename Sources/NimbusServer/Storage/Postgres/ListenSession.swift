import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// One listening connection of ``PostgresChangeListener``: connects outside the pool, sends
/// `LISTEN`, and delivers what it hears, in an unstructured task that the listener may
/// abandon at any moment without waiting for it.
///
/// An abandoned session's task is cancelled and its connection closed without awaiting
/// either, because the await that made it look dead may never return.
///
/// For example:
/// ```swift
/// let session = ListenSession.start(storage)
/// if case .ended(let error) = session.phase { … }
/// session.abandon()
/// ```
final class ListenSession: Sendable {
    enum Phase: Sendable {
        /// Connecting or waiting for `LISTEN` to complete, since the instant given.
        case starting(since: ContinuousClock.Instant)
        /// `LISTEN` completed; notifications are being delivered.
        case listening
        /// The connection failed or closed; the error, if one was raised.
        case ended((any Error)?)
    }

    private struct State {
        var phase: Phase
        var connection: PostgresConnection?
        var abandoned = false
        var listened = false
    }

    private static let nextID = NIOLockedValueBox(0)

    private let state: NIOLockedValueBox<State>
    private let task = NIOLockedValueBox<Task<Void, Never>?>(nil)

    private init() {
        state = NIOLockedValueBox(State(phase: .starting(since: .now)))
    }

    /// Starts a session that delivers to the storage's change feed.
    static func start(_ storage: PostgresStorage) -> ListenSession {
        let session = ListenSession()
        let id = nextID.withLockedValue { id in
            id += 1
            return id
        }
        let task = Task { await session.listen(storage, id: id) }
        session.task.withLockedValue { $0 = task }
        return session
    }

    /// Where the session stands.
    var phase: Phase { state.withLockedValue { $0.phase } }

    /// Whether `LISTEN` ever completed.
    var listened: Bool { state.withLockedValue { $0.listened } }

    /// Cancels the session's task and closes its connection, without waiting for either.
    func abandon() {
        let connection = state.withLockedValue { state -> PostgresConnection? in
            state.abandoned = true
            return state.connection
        }
        task.withLockedValue { $0?.cancel() }
        if let connection { Self.close(connection) }
    }

    private func listen(_ storage: PostgresStorage, id: Int) async {
        var connection: PostgresConnection?
        do {
            let connected = try await PostgresConnection.connect(
                configuration: storage.listenerConfiguration, id: id, logger: storage.logger)
            connection = connected
            let abandoned = state.withLockedValue { state -> Bool in
                state.connection = connected
                return state.abandoned
            }
            if abandoned { throw CancellationError() }
            try await connected.listen(on: PostgresStorage.channel) { notifications in
                storage.liveness.listeningStarted()
                state.withLockedValue { state in
                    state.phase = .listening
                    state.listened = true
                }
                for try await notification in notifications {
                    Self.handle(notification.payload, storage: storage)
                }
            }
            finish(nil)
        } catch {
            finish(error)
        }
        if let connection { Self.close(connection) }
    }

    /// Starts closing a connection without waiting for it to close. The connection is kept
    /// alive until it has closed (postgres-nio requires a connection to be closed before it is
    /// released).
    private static func close(_ connection: PostgresConnection) {
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    private func finish(_ error: (any Error)?) {
        state.withLockedValue { $0.phase = .ended(error) }
    }

    /// Delivers a change event; takes this process's heartbeats as proof of life and drops
    /// everyone's heartbeats.
    static func handle(_ payload: String, storage: PostgresStorage) {
        if payload.hasPrefix(HeartbeatPayload.prefix) {
            if let heartbeat = HeartbeatPayload.parse(payload), heartbeat.instance == storage.liveness.instance {
                storage.liveness.heard(heartbeat.seq)
            }
            return
        }
        guard let event = try? JSONDecoder().decode(ChangeEvent.self, from: Data(payload.utf8)) else { return }
        storage.changeFeed.deliver(event)
    }
}
