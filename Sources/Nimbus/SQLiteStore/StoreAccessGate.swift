import Foundation
import Synchronization

/// Lets a store's connections close while other threads may still hold the store.
///
/// A store removed from its coordinator (`removePersistentStore`, an account's store swap)
/// can still be referenced by work in flight: a context's block, a sync engine's import. GRDB
/// must not close a connection pool while another thread starts a read on it (the read can
/// reach a connection already closed, and SQLite then dereferences NULL). Every access to the
/// store's database passes this gate: closing refuses new accesses, waits for the running ones,
/// and only then closes the connections; a later access throws a clear error instead.
final class StoreAccessGate: Sendable {
    private let state = Mutex<(closed: Bool, running: Int)>((false, 0))

    /// Runs `body` as one access, unless the store is closed.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/storeNotFound`` once the store is closed;
    ///   the errors of `body`.
    func pass<T>(_ identifier: String, _ body: () throws -> T) throws -> T {
        try enter(identifier)
        defer { leave() }
        return try body()
    }

    /// Starts an access (paired with ``leave()``), unless the store is closed.
    func enter(_ identifier: String) throws {
        let closed = state.withLock { state -> Bool in
            if state.closed { return true }
            state.running += 1
            return false
        }
        if closed {
            throw NimbusError(.storeNotFound, "the store \(identifier) was removed from its coordinator; "
                + "its objects can no longer be read or saved (fetch them again from the coordinator's current stores)")
        }
    }

    func leave() { state.withLock { $0.running -= 1 } }

    /// Refuses new accesses, then waits up to `timeout` for the running ones to end; returns
    /// whether none is still running (so the connections can be closed now).
    func close(waitingUpTo timeout: Duration) -> Bool {
        state.withLock { $0.closed = true }
        let deadline = ContinuousClock.now + timeout
        while state.withLock({ $0.running }) > 0 {
            if ContinuousClock.now >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return true
    }
}
