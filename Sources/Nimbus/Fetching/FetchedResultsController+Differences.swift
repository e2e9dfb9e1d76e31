import Foundation

extension FetchedResultsController {
    /// The batches of changes from now on, as an `AsyncSequence`: one
    /// ``FetchedResultsDifference`` per save, merge or processPendingChanges that changed the
    /// results (or gave new objects permanent IDs). Each call starts a new sequence; it ends
    /// when the controller goes away.
    ///
    /// ```swift
    /// Task {
    ///     for await difference in controller.differences {
    ///         print(difference.objectChanges.count, "changes;", difference.sections.map(\.name))
    ///     }
    /// }
    /// ```
    public var differences: AsyncStream<FetchedResultsDifference> {
        let (stream, continuation) = AsyncStream<FetchedResultsDifference>.makeStream(bufferingPolicy: .unbounded)
        let key = UUID()
        streams.withLock { $0[key] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.streams.withLock { $0[key] = nil }
        }
        return stream
    }
}
