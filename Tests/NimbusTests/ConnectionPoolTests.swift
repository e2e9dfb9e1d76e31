import Dispatch
import Foundation
import GRDB
import Synchronization
import Testing
@testable import Nimbus
import NimbusTesting

/// Holds a save inside its transaction until released, to build timelines.
final class BlockingSaveHook: SaveHook, @unchecked Sendable {
    let writing = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    func didWrite(_ request: SaveRequest, result: SaveResult, database: SQLiteDatabase, _ db: Database) throws {
        writing.signal()
        release.wait()
    }
}

/// Events in the order they happened.
final class Timeline: Sendable {
    private let events = Mutex<[String]>([])
    func record(_ event: String) { events.withLock { $0.append(event) } }
    var all: [String] { events.withLock { $0 } }
}

@Suite("Connection pool")
struct ConnectionPoolTests {
    private func run(poolSize: Int) throws -> [String] {
        let folder = try TemporaryDirectory()
        var description = PersistentStoreDescription(url: folder.file("Pool.sqlite"))
        description.maximumConnectionPoolSize = poolSize
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PostsModel.make())
        let store = try coordinator.addPersistentStore(with: description)
        let seeding = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        let id = try seeding.performAndWait { () throws in
            let post = try seeding.insert("Post", ["title": "seed"])
            try seeding.save()
            return post.objectID
        }
        let hook = BlockingSaveHook()
        store.addSaveHook(hook)
        let timeline = Timeline()
        let writer = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        coordinator.rowCache.removeAll()
        let saved = DispatchSemaphore(value: 0)
        writer.perform {
            _ = try? writer.insert("Post", ["title": "new"])
            try? writer.save()
            timeline.record("writer saved")
            saved.signal()
        }
        hook.writing.wait()
        timeline.record("writer in transaction")
        let read = DispatchSemaphore(value: 0)
        reader.perform {
            let count = (try? reader.all("Post").count) ?? -1
            let fault = reader.object(with: id)
            let title = fault.value(forKey: "title") as? String ?? "?"
            timeline.record("reader fetched \(count), fault \(title)")
            read.signal()
        }
        // With a pool the reader finishes while the writer is still inside its transaction;
        // with one connection it cannot until the writer is released.
        let finishedEarly = read.wait(timeout: .now() + (poolSize > 1 ? 30 : 0.5)) == .success
        timeline.record(finishedEarly ? "reader done before release" : "reader still waiting")
        hook.release.signal()
        saved.wait()
        if !finishedEarly { read.wait() }
        return timeline.all
    }

    @Test("fetches and faults proceed while another context saves")
    func concurrentReads() throws {
        let events = try run(poolSize: 4)
        #expect(events == ["writer in transaction", "reader fetched 1, fault seed", "reader done before release", "writer saved"])
    }

    @Test("a pool of one connection serializes every request")
    func serialized() throws {
        let events = try run(poolSize: 1)
        // The reader waited for the writer's transaction and then saw its insert (2 posts);
        // whether the writer's context or the reader records its line first after the commit is up to the scheduler.
        #expect(Array(events.prefix(2)) == ["writer in transaction", "reader still waiting"])
        #expect(Set(events.dropFirst(2)) == ["writer saved", "reader fetched 2, fault seed"])
    }
}
