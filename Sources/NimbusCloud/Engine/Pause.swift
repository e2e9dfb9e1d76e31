import Foundation

/// Waits for a duration, as `Task.sleep` does, but on a semaphore's timed wait.
///
/// `Task.sleep` and `DispatchQueue.asyncAfter` never return in a process whose clock is
/// shifted by libfaketime (the timers of Dispatch's event loop stall), and a device whose
/// clock is wrong is exactly what sync must survive: a retry after a 429 hung `nimbus device
/// sync` forever. A semaphore's timed wait keeps working. Waits are rare (retries, a transfer
/// watchdog's ticks), so a thread per wait costs nothing that matters.
enum Pause {
    /// Returns after `duration`, or throws `CancellationError` as soon as the task is cancelled.
    static func sleep(for duration: Duration) async throws {
        let semaphore = DispatchSemaphore(value: 0)
        let (seconds, attoseconds) = duration.components
        let nanoseconds = min(max(0, seconds), 1 << 32) * 1_000_000_000 + max(0, attoseconds) / 1_000_000_000
        try await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                Thread.detachNewThread {
                    _ = semaphore.wait(timeout: .now() + .nanoseconds(Int(clamping: nanoseconds)))
                    continuation.resume()
                }
            }
            try Task.checkCancellation()
        } onCancel: {
            semaphore.signal()
        }
    }
}
