import Foundation
import Synchronization
import Testing
@testable import Nimbus
import NimbusTesting

/// Issue 28, item 6: the small Core Data APIs a port meets — batch inserts by
/// `managedObjectHandler`, `stalenessInterval`, `hasFault(forRelationshipNamed:)`,
/// `faultingState`, `perform(schedule:)`, and the `noindex:` / `indexed:by:` predicate hints.
@Suite("Core Data's smaller APIs")
struct CoreDataSmallAPITests {
    @Test("a batch insert by managedObjectHandler inserts what each object was given, defaults included, until it says stop")
    func managedObjectHandler() throws {
        let stack = try TestStack(history: true)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            var index = 0
            var request = BatchInsertRequest(entityName: "Post") { object in
                guard index < 3 else { return true }
                object.setValue("post \(index)", forKey: "title")
                if index == 1 { object.setValue(Int64(7), forKey: "views") }
                index += 1
                return false
            }
            request.resultType = .objectIDs
            let result = try context.execute(request)
            #expect(result.count == 3 && result.objectIDs.count == 3)
            #expect(context.insertedObjects.isEmpty && !context.hasChanges, "the handler's objects are not the context's")
            let posts = try context.all("Post", sortedBy: "title")
            #expect(posts.map { $0.value(forKey: "title") as? String } == ["post 0", "post 1", "post 2"])
            #expect(posts.map { $0.value(forKey: "views") as? Int64 } == [0, 7, 0])
            #expect(posts.map { $0.value(forKey: "published") as? Bool } == [false, false, false])
            let history = try context.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
            #expect(history.count == 1 && history[0].changes?.count == 3)
        }
    }

    @Test("stalenessInterval 0 reads the store's row when a fault fires; the default takes the coordinator's cached row")
    func stalenessInterval() throws {
        let stack = try TestStack()
        let writer = stack.newContext()
        let id = try writer.performAndWait { () throws in
            let post = try writer.insert("Post", ["title": "old"])
            try writer.save()
            return post.objectID
        }
        // Another coordinator changes the row: this coordinator's cache still holds "old".
        let other = try stack.reopenedContext()
        try other.performAndWait { () throws in
            try other.existingObject(with: id).setValue("new", forKey: "title")
            try other.save()
        }
        let cached = stack.newContext()
        #expect(cached.stalenessInterval < 0)
        #expect(cached.performAndWait { cached.object(with: id).value(forKey: "title") as? String } == "old")
        let fresh = stack.newContext()
        fresh.stalenessInterval = 0
        #expect(fresh.performAndWait { fresh.object(with: id).value(forKey: "title") as? String } == "new")
        let recent = stack.newContext()
        recent.stalenessInterval = 3600
        #expect(recent.performAndWait { recent.object(with: id).value(forKey: "title") as? String } == "new",
                "the fresh read above replaced the cached row")
    }

    @Test("faultingState and hasFault(forRelationshipNamed:) say what is loaded, without loading anything")
    func faultStates() throws {
        let stack = try TestStack()
        let writer = stack.newContext()
        let id = try writer.performAndWait { () throws in
            let person = try writer.insert("Person", ["name": "Ada"])
            let post = try writer.insert("Post", ["title": "a"])
            post.setValue(person, forKey: "author")
            try writer.save()
            return post.objectID
        }
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let post = context.object(with: id)
            #expect(post.faultingState == 1)
            #expect(post.hasFault(forRelationshipNamed: "tags"))
            #expect(post.hasFault(forRelationshipNamed: "author"))
            #expect(post.isFault, "asking loaded nothing")
            try post.fireFault()
            #expect(post.faultingState == 0)
            #expect(post.hasFault(forRelationshipNamed: "tags"), "members not loaded yet")
            #expect(post.hasFault(forRelationshipNamed: "author"), "the author is not loaded")
            _ = post.mutableSetValue(forKey: "tags").count
            #expect(!post.hasFault(forRelationshipNamed: "tags"))
            let author = try #require(post.value(forKey: "author") as? ManagedObject)
            try author.fireFault()
            #expect(!post.hasFault(forRelationshipNamed: "author"))
            let inserted = try context.insert("Post", ["title": "new"])
            #expect(inserted.faultingState == 0 && !inserted.hasFault(forRelationshipNamed: "tags"))
            #expect(!inserted.hasFault(forRelationshipNamed: "author"), "no destination")
        }
    }

    @Test("perform(schedule: .enqueued) runs after what is queued; .immediate inside the context's queue runs at once")
    func performSchedule() async throws {
        let stack = try TestStack()
        let context = stack.newContext()
        let order = Mutex<[String]>([])
        Self.enqueue(on: context) { order.withLock { $0.append("queued first") } }
        try await context.perform(schedule: .enqueued) { order.withLock { $0.append("enqueued") } }
        #expect(order.withLock { $0 } == ["queued first", "enqueued"])
        let immediate = try await context.perform(schedule: .immediate) { () -> Int in
            context.performAndWait { 1 }
        }
        #expect(immediate == 1)
    }

    /// The queue-only `perform` (in an async function the awaiting overload is chosen).
    static func enqueue(on context: ManagedObjectContext, _ block: @escaping @Sendable () -> Void) {
        context.perform(block)
    }

    static func notesModel() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Note") {
                AttributeDescription("title", .string)
                AttributeDescription("rank", .integer64, defaultValue: 0)
                FetchIndexDescription(name: "byTitle", elements: [.init("title")])
            }
        }
    }

    @Test("noindex: keeps SQLite off the index and indexed:by: names one; both mean the value itself, in SQL and in memory")
    func indexHints() throws {
        let stack = try TestStack(model: try Self.notesModel())
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for i in 0..<20 { _ = try context.insert("Note", ["title": "n\(i)", "rank": i]) }
            try context.save()
            func plan(_ format: String) throws -> (titles: [String], plan: String) {
                var request = FetchRequest<ManagedObject>(entityName: "Note")
                request.predicate = try QueryPredicate(format: format)
                // No sort: an ORDER BY title would scan the index for its order whatever the predicate says.
                let titles = try context.fetch(request).compactMap { $0.value(forKey: "title") as? String }.sorted()
                let explained = try context.explain(request).flatMap(\.queryPlan).joined(separator: "\n")
                // The same predicate in memory.
                let inMemory = try context.all("Note").filter { try request.predicate!.evaluate(with: $0) }
                #expect(inMemory.count == titles.count, "\(format)")
                return (titles, explained)
            }
            let plain = try plan("title == 'n3'")
            #expect(plain.titles == ["n3"] && plain.plan.contains("Z_NOTE_BYTITLE"), "\(plain.plan)")
            let hinted = try plan("indexed:by:(title, 'byTitle') == 'n3'")
            #expect(hinted.titles == ["n3"] && hinted.plan.contains("Z_NOTE_BYTITLE"), "\(hinted.plan)")
            let avoided = try plan("noindex:(title) == 'n3'")
            #expect(avoided.titles == ["n3"], "\(avoided.titles)")
            #expect(!avoided.plan.contains("Z_NOTE_BYTITLE"), "\(avoided.plan)")
            #expect(try QueryPredicate(format: "noindex:(title) == 'n3'").description.contains("noindex:(title)"))
            var unknown = FetchRequest<ManagedObject>(entityName: "Note")
            unknown.predicate = try QueryPredicate(format: "indexed:by:(title, 'byNothing') == 'n3'")
            #expect { try context.fetch(unknown) } throws: { error in
                guard let error = error as? NimbusError, error.code == .invalidPredicate else { return false }
                return error.message.contains("byTitle")
            }
        }
    }
}
