import Foundation
import Synchronization
import Testing
@testable import Nimbus
import NimbusTesting

/// Issue 28, item 1: a store added with `NSPersistentStoreRemoteChangeNotificationPostOptionKey`
/// posts a remote change, with the history token, when another coordinator commits to it;
/// its own coordinator's saves do not count.
@Suite("Remote change notifications")
struct RemoteChangeTests {
    /// Two coordinators on one file: `watcher` asks for remote changes, `writer` saves.
    private struct TwoCoordinators {
        let folder: TemporaryDirectory
        let watcher: PersistentStoreCoordinator
        let watchedStore: PersistentStore
        let writer: PersistentStoreCoordinator

        init() throws {
            folder = try TemporaryDirectory()
            let model = try PostsModel.make()
            watcher = PersistentStoreCoordinator(managedObjectModel: model)
            var description = PersistentStoreDescription(url: folder.file("Posts.sqlite"))
            description.setOption(true as NSNumber, forKey: NSPersistentHistoryTrackingKey)
            description.setOption(true as NSNumber, forKey: NSPersistentStoreRemoteChangeNotificationPostOptionKey)
            watchedStore = try watcher.addPersistentStore(with: description)
            writer = PersistentStoreCoordinator(managedObjectModel: model)
            var other = PersistentStoreDescription(url: folder.file("Posts.sqlite"))
            other.persistentHistoryTracking = true
            try writer.addPersistentStore(with: other)
        }

        /// Saves one tag through `coordinator`; returns the transaction number it wrote.
        func save(_ name: String, through coordinator: PersistentStoreCoordinator) throws -> Int64 {
            let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
            return try context.performAndWait { () throws in
                _ = try context.insert("Tag", ["name": name])
                try context.save()
                return try context.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions.last!.transactionNumber
            }
        }
    }

    @Test("another coordinator's save posts NSPersistentStoreRemoteChange with its history token, as a notification and in remoteChanges()")
    func anotherCoordinatorsSave() async throws {
        let stack = try TwoCoordinators()
        let changes = stack.watcher.remoteChanges()
        let posted = Mutex<[(store: String?, token: PersistentHistoryToken?)]>([])
        let observer = NotificationCenter.default.addObserver(forName: .NSPersistentStoreRemoteChange, object: stack.watcher, queue: nil) { note in
            let entry = (note.userInfo?[NSStoreUUIDKey] as? String, note.userInfo?[NSPersistentHistoryTokenKey] as? PersistentHistoryToken)
            posted.withLock { $0.append(entry) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }

        let received = Mutex<[PersistentStoreCoordinator.RemoteChange]>([])
        let consumer = Task { for await change in changes { received.withLock { $0.append(change) } } }
        defer { consumer.cancel() }

        var latencies: [Duration] = []
        for round in 0..<10 {
            let number = try stack.save("t\(round)", through: stack.writer)
            let saved = ContinuousClock.now
            // Commits within one poll may share a notification: wait for the one that covers this save.
            try await Self.eventually {
                received.withLock { $0.contains { ($0.historyToken?.transactionNumber ?? 0) >= number } }
            }
            latencies.append(ContinuousClock.now - saved)
        }
        for change in received.withLock({ $0 }) {
            #expect(change.storeIdentifier == stack.watchedStore.identifier)
            #expect(change.storeURL == stack.watchedStore.url)
        }
        let note = try #require(posted.withLock { $0.last })
        #expect(note.store == stack.watchedStore.identifier)
        #expect(note.token?.storeIdentifier == stack.watchedStore.identifier)
        let sorted = latencies.sorted()
        print("remote change latency over \(sorted.count) saves: median \(sorted[sorted.count / 2]), max \(sorted.last!)")
    }

    /// Waits until `condition` holds, checking every 5 ms; fails after `limit` (a guard
    /// against hanging, not a measurement).
    static func eventually(within limit: Duration = .seconds(60), _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("no remote change came within \(limit)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    @Test("the watched coordinator's own saves do not change what the watch reads; another coordinator's do")
    func ownSavesAreNotRemote() throws {
        let stack = try TwoCoordinators()
        let before = try stack.watchedStore.database.remoteState()
        let own = try stack.save("mine", through: stack.watcher)
        let afterOwn = try stack.watchedStore.database.remoteState()
        #expect(afterOwn.version == before.version)
        #expect(afterOwn.token?.transactionNumber == own)
        let theirs = try stack.save("theirs", through: stack.writer)
        let afterTheirs = try stack.watchedStore.database.remoteState()
        #expect(afterTheirs.version != before.version)
        #expect(afterTheirs.token == PersistentHistoryToken(storeIdentifier: stack.watchedStore.identifier, transactionNumber: theirs))
    }
}
