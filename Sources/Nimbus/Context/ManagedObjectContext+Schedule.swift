import Foundation

extension ManagedObjectContext {
    /// When ``perform(schedule:_:)`` runs its block, as Core Data's `ScheduledTaskType`.
    public enum ScheduledTaskType: Sendable, Hashable {
        /// At once when called on the context's queue (inside one of its blocks); otherwise
        /// enqueued.
        case immediate
        /// Always after the blocks already on the context's queue.
        case enqueued
    }

    /// Runs a block on the context's queue, at once or after what is queued, and returns its
    /// result.
    ///
    /// For example:
    ///
    /// ```swift
    /// let count = try await context.perform(schedule: .enqueued) { try context.count(for: request) }
    /// ```
    /// - Throws: what the block throws.
    public func perform<T: Sendable>(schedule: ScheduledTaskType, _ block: @escaping @Sendable () throws -> T) async throws -> T {
        if schedule == .immediate && reference.isInThreadChain { return try block() }
        return try await perform(block)
    }
}
