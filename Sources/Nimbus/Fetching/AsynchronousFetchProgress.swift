import Synchronization

/// How far an asynchronous fetch has read: the `Progress` of a Core Data asynchronous
/// fetch, safe to read from any thread.
///
/// The handler is called as rows are read (every `reportingInterval` rows, and once at the
/// end), on the thread that reads. For example:
///
/// ```swift
/// let progress = FetchProgress(reportingInterval: 500) { progress in
///     print("\(progress.completedUnitCount) of \(progress.totalUnitCount)")
/// }
/// let posts = try await context.fetch(request, progress: progress)
/// ```
public final class FetchProgress: Sendable {
    private struct State {
        var total: Int64 = -1
        var completed: Int64 = 0
    }

    private let state = Mutex(State())
    private let handler: @Sendable (FetchProgress) -> Void
    /// How many rows are read between calls of the handler.
    public let reportingInterval: Int

    /// Creates a progress to pass to ``ManagedObjectContext/fetch(_:progress:)``.
    ///
    /// - Parameters:
    ///   - reportingInterval: rows read between calls of `handler` (at least 1).
    ///   - handler: called as rows are read; may cancel the fetching task.
    public init(reportingInterval: Int = 1000, _ handler: @escaping @Sendable (FetchProgress) -> Void = { _ in }) {
        self.reportingInterval = max(1, reportingInterval)
        self.handler = handler
    }

    /// The number of rows the fetch will read, or -1 before it knows.
    public var totalUnitCount: Int64 { state.withLock { $0.total } }

    /// The number of rows read so far.
    public var completedUnitCount: Int64 { state.withLock { $0.completed } }

    /// The part read so far, from 0 to 1 (0 while the total is unknown).
    public var fractionCompleted: Double {
        state.withLock { $0.total > 0 ? Double($0.completed) / Double($0.total) : ($0.total == 0 ? 1 : 0) }
    }

    func start(total: Int) {
        state.withLock { $0.total = Int64(total); $0.completed = 0 }
        handler(self)
    }

    func advance(to completed: Int) {
        state.withLock { $0.completed = Int64(completed) }
        handler(self)
    }
}
