import Foundation
import NIOConcurrencyHelpers

/// Fans committed changes out to the devices connected to this process.
///
/// The SQLite backend delivers each event after its transaction commits; the PostgreSQL
/// backend sends `NOTIFY` inside the transaction and every process's listener delivers what
/// it hears, so a write through one process reaches devices connected to another.
///
/// For example:
/// ```swift
/// let subscription = feed.subscribe(to: database)
/// for await event in subscription.events { send(event) }
/// ```
package final class ChangeFeed: Sendable {
    /// A live subscription; cancel it when the device disconnects.
    package struct Subscription: Sendable {
        package let id: UUID
        package let events: AsyncStream<ChangeEvent>
    }

    private struct Subscriber {
        var database: DatabaseKey
        var continuation: AsyncStream<ChangeEvent>.Continuation
    }

    private let subscribers = NIOLockedValueBox<[UUID: Subscriber]>([:])
    private let observers = NIOLockedValueBox<[@Sendable (ChangeEvent) -> Void]>([])

    package init() {}

    /// Subscribes to the changes of one database.
    package func subscribe(to database: DatabaseKey) -> Subscription {
        let id = UUID()
        let (stream, continuation) = AsyncStream<ChangeEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        subscribers.withLockedValue { $0[id] = Subscriber(database: database, continuation: continuation) }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLockedValue { _ = $0.removeValue(forKey: id) }
        }
        return Subscription(id: id, events: stream)
    }

    /// Ends a subscription.
    package func cancel(_ subscription: Subscription) {
        let subscriber = subscribers.withLockedValue { $0.removeValue(forKey: subscription.id) }
        subscriber?.continuation.finish()
    }

    /// Adds a callback that sees every delivered event (metrics, tests).
    package func observe(_ observer: @escaping @Sendable (ChangeEvent) -> Void) {
        observers.withLockedValue { $0.append(observer) }
    }

    /// Delivers an event to the subscribers of its database.
    package func deliver(_ event: ChangeEvent) {
        let targets = subscribers.withLockedValue { subscribers in
            subscribers.values.filter { $0.database == event.database }.map(\.continuation)
        }
        for continuation in targets { continuation.yield(event) }
        for observer in observers.withLockedValue({ $0 }) { observer(event) }
    }

    /// The number of connected subscriptions.
    package var connectedCount: Int { subscribers.withLockedValue { $0.count } }

    /// Finishes every subscription (shutdown).
    package func finishAll() {
        let all = subscribers.withLockedValue { subscribers in
            defer { subscribers.removeAll() }
            return subscribers.values.map(\.continuation)
        }
        for continuation in all { continuation.finish() }
    }
}
