import Foundation
@testable import Nimbus
import NimbusTesting
import Synchronization
import Testing

@Suite("Asynchronous fetch")
struct AsynchronousFetchTests {
    /// A store of `count` posts with views 0..<count.
    // The stack owns the temporary folder: keep it alive for the whole test.
    static func largeStore(_ count: Int) throws -> (TestStack, ManagedObjectContext) {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for i in 0..<count { _ = try context.insert("Post", ["title": "post \(i)", "views": i]) }
            try context.save()
            context.reset()
        }
        return (stack, context)
    }

    static func byViews() -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: "Post")
        request.sortDescriptors = [FetchSortDescriptor("views")]
        return request
    }

    @Test("fetching 20,000 rows reports rising progress up to the total, leaves the context's queue free, and returns every object in order")
    func progress() async throws {
        let (stack, context) = try Self.largeStore(20_000)
        let seen = Mutex<[Int64]>([])
        let queueWasFree = Mutex<[Bool]>([])
        let progress = FetchProgress(reportingInterval: 1000) { progress in
            seen.withLock { $0.append(progress.completedUnitCount) }
            // Rows are read off the context's queue, which stays free for other work.
            let free = !context.isOnQueue && context.performAndWait { context.registeredObjects.isEmpty }
            queueWasFree.withLock { $0.append(free) }
        }
        let posts = try await context.fetch(Self.byViews(), progress: progress)
        #expect(posts.count == 20_000)
        #expect(progress.totalUnitCount == 20_000)
        #expect(progress.completedUnitCount == 20_000)
        #expect(progress.fractionCompleted == 1)
        let values = seen.withLock { $0 }
        #expect(values.count >= 20)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 }, "progress went back: \(values)")
        #expect(values.last == 20_000)
        #expect(queueWasFree.withLock { $0.allSatisfy { $0 } })
        let views = context.performAndWait {
            [posts.first!.value(forKey: "views") as? Int64, posts.last!.value(forKey: "views") as? Int64]
        }
        #expect(views == [0, 19_999])
        withExtendedLifetime(stack) {}
    }

    @Test("cancelling the task stops reading, throws CancellationError and leaves the context usable")
    func cancellation() async throws {
        let (stack, context) = try Self.largeStore(20_000)
        let task = CancellableTask()
        let progress = FetchProgress(reportingInterval: 500) { progress in
            if progress.completedUnitCount >= 2_000 { task.cancel() }
        }
        task.start { _ = try await context.fetch(Self.byViews(), progress: progress) }
        let outcome = await task.result()
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(progress.completedUnitCount >= 2_000)
        #expect(progress.completedUnitCount < 20_000, "reading went on after cancellation")
        #expect(context.performAndWait { context.registeredObjects.isEmpty })

        var limited = Self.byViews()
        limited.fetchLimit = 3
        let posts = try await context.fetch(limited)
        #expect(context.performAndWait { posts.map { $0.value(forKey: "views") as? Int64 } } == [0, 1, 2])
        #expect(try context.performAndWait { try context.count(for: Self.byViews()) } == 20_000)
        withExtendedLifetime(stack) {}
    }

    @Test("a task cancelled before it starts reads nothing")
    func cancelledBeforeStart() async throws {
        let (stack, context) = try Self.largeStore(100)
        let progress = FetchProgress()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            _ = try await context.fetch(Self.byViews(), progress: progress)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(progress.completedUnitCount == 0)
        withExtendedLifetime(stack) {}
    }

    @Test("unsaved changes count, and object IDs can be fetched asynchronously")
    func pendingChangesAndIDs() async throws {
        let (stack, context) = try Self.largeStore(50)
        try context.performAndWait { () throws in
            _ = try context.insert("Post", ["title": "new", "views": -1])
        }
        let progress = FetchProgress()
        let posts = try await context.fetch(Self.byViews(), progress: progress)
        #expect(posts.count == 51)
        #expect(progress.completedUnitCount == 51)
        #expect(context.performAndWait { posts.first!.value(forKey: "title") as? String } == "new")
        try context.performAndWait { try context.save() }

        var ids = FetchRequest<ManagedObjectID>(entityName: "Post")
        ids.sortDescriptors = [FetchSortDescriptor("views", ascending: false)]
        ids.fetchLimit = 10
        let idProgress = FetchProgress(reportingInterval: 1)
        let fetched = try await context.fetch(ids, progress: idProgress)
        #expect(fetched.count == 10)
        #expect(fetched.allSatisfy { !$0.isTemporaryID })
        #expect(idProgress.totalUnitCount == 10)
        #expect(idProgress.completedUnitCount == 10)

        // A nested context sees its parent's unsaved objects.
        try context.performAndWait { () throws in _ = try context.insert("Post", ["title": "unsaved", "views": -2]) }
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: context)
        let seen = try await child.fetch(Self.byViews())
        #expect(seen.count == 52)
        #expect(child.performAndWait { seen.first?.value(forKey: "title") as? String } == "unsaved")
        withExtendedLifetime(stack) {}
    }
}

/// A task that can be cancelled from a progress handler even before it is stored.
final class CancellableTask: Sendable {
    private struct State {
        var task: Task<Void, any Error>?
        var cancelRequested = false
    }
    private let state = Mutex(State())

    func start(_ body: @escaping @Sendable () async throws -> Void) {
        let task = Task { try await body() }
        let cancelNow = state.withLock { state in
            state.task = task
            return state.cancelRequested
        }
        if cancelNow { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state in
            state.cancelRequested = true
            return state.task
        }
        task?.cancel()
    }

    func result() async -> Result<Void, any Error> {
        await state.withLock { $0.task }!.result
    }
}
