import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

@Suite("Faults, batches and the row cache")
struct FaultingTests {
    private func seed(_ stack: TestStack, posts: Int) throws {
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let author = try context.insert("Person", ["name": "Ada"])
            for i in 0..<posts { _ = try context.insert("Post", ["title": "p\(i)", "views": i, "author": author]) }
            try context.save()
        }
        stack.store.resetRecordedSQL()
    }

    private func selects(_ stack: TestStack) -> [String] {
        entitySelects(stack.store)
    }

    @Test("objects fetched as faults load their values on first access, with no more SQL")
    func faultsFromFetch() throws {
        let stack = try TestStack(recordSQL: true)
        try seed(stack, posts: 3)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let posts = try context.all("Post", sortedBy: "views")
            #expect(posts.allSatisfy { $0.isFault })
            #expect(selects(stack).count == 1, "\(selects(stack))")
            #expect(posts[1].value(forKey: "title") as? String == "p1")
            #expect(!posts[1].isFault)
            #expect(selects(stack).count == 1, "\(selects(stack))")
        }
    }

    @Test("fetching IDs only makes faults that read their row when fired")
    func idOnlyFaults() throws {
        let stack = try TestStack(recordSQL: true)
        try seed(stack, posts: 3)
        let (context, store) = try stack.reopenedContextRecording()
        try context.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Post")
            request.includesPropertyValues = false
            let posts = try context.fetch(request)
            #expect(posts.count == 3)
            #expect(entitySelects(store).count == 1)
            _ = posts[0].value(forKey: "title")
            #expect(entitySelects(store).count == 2)
            // The author is a fault too, and its posts a to-many fault read on access.
            let author = try #require(posts[0].value(forKey: "author") as? ManagedObject)
            #expect(author.isFault)
            #expect((author.value(forKey: "posts") as? Set<ManagedObject>)?.count == 3)
        }
    }

    @Test("a batch size loads faults a batch at a time")
    func batches() throws {
        let stack = try TestStack(recordSQL: true)
        try seed(stack, posts: 25)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Post")
            request.fetchBatchSize = 10
            request.sortDescriptors = [FetchSortDescriptor("views")]
            let posts = try context.fetch(request)
            #expect(posts.count == 25)
            #expect(selects(stack).count == 1, "\(selects(stack))")
            for post in posts.prefix(10) { _ = post.value(forKey: "title") }
            #expect(selects(stack).count == 2)
            #expect(posts[10].isFault)
            #expect(posts[24].value(forKey: "views") as? Int64 == 24)
            #expect(selects(stack).count == 3)
        }
    }

    @Test("prefetching relationship key paths avoids one query per object")
    func prefetching() throws {
        let stack = try TestStack(recordSQL: true)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for i in 0..<20 {
                let author = try context.insert("Person", ["name": "a\(i)"])
                _ = try context.insert("Post", ["title": "p\(i)", "author": author])
            }
            try context.save()
        }
        stack.store.resetRecordedSQL()
        let fresh = try stack.reopenedContextRecording()
        try fresh.context.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Post")
            request.relationshipKeyPathsForPrefetching = ["author"]
            let posts = try fresh.context.fetch(request)
            let names = posts.compactMap { ($0.value(forKey: "author") as? ManagedObject)?.value(forKey: "name") as? String }
            #expect(names.count == 20)
            #expect(entitySelects(fresh.store).count == 2, "\(entitySelects(fresh.store))")
        }
    }

    @Test("a second context fires faults from the coordinator's row cache")
    func rowCache() throws {
        let stack = try TestStack(recordSQL: true)
        try seed(stack, posts: 1)
        let first = stack.newContext()
        let id = try first.performAndWait { () throws in
            let post = try #require(try first.all("Post").first)
            return post.objectID
        }
        stack.store.resetRecordedSQL()
        let second = stack.newContext()
        try second.performAndWait { () throws in
            let post = second.object(with: id)
            #expect(post.value(forKey: "title") as? String == "p0")
        }
        // The saving context put the row in the cache: no SELECT was needed.
        #expect(selects(stack).isEmpty)
    }
}

/// SELECT statements on the store's tables (not GRDB's own schema queries).
func entitySelects(_ store: PersistentStore) -> [String] {
    (store.recordedSQL ?? []).filter { $0.hasPrefix("SELECT") && !$0.contains("sqlite_master") && !$0.contains("Z_MODELCACHE") }
}

extension TestStack {
    /// A new coordinator on the same file that records SQL.
    func reopenedContextRecording() throws -> (context: ManagedObjectContext, store: PersistentStore) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var description = PersistentStoreDescription(url: url)
        description.options["recordSQL"] = "1"
        let store = try coordinator.addPersistentStore(with: description)
        return (ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator), store)
    }
}
