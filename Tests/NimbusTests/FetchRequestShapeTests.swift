import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// Requests do what they say: a limit holds with unsaved changes, a result type that does
/// not fit the request's type is an error, and store options are honoured or refused.
@Suite("Fetch request shapes and store options")
struct FetchRequestShapeTests {
    @Test("a limited fetch with one unsaved change reads a limited number of rows, with the right result")
    func limitWithPendingChange() throws {
        let stack = try TestStack(recordSQL: true)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for i in 0..<200 { _ = try context.insert("Post", ["title": "p\(i)", "views": i]) }
            try context.save()
            let first = try #require(try context.all("Post", sortedBy: "views").first)
            first.setValue(1000, forKey: "views")
            stack.store.resetRecordedSQL()
            var request = FetchRequest<ManagedObject>(entityName: "Post")
            request.sortDescriptors = [FetchSortDescriptor("views")]
            request.fetchLimit = 3
            request.fetchOffset = 1
            let views = try context.fetch(request).map { $0.value(forKey: "views") as? Int64 }
            #expect(views == [2, 3, 4])
            let selects = (stack.store.recordedSQL ?? []).filter { $0.hasPrefix("SELECT") && $0.contains("ZPOST") }
            #expect(selects.count == 1 && selects.allSatisfy { $0.contains("LIMIT 5") }, "\(selects)")
            // The changed object still sorts last when the whole range is asked for.
            request.fetchOffset = 197
            #expect(try context.fetch(request).map { $0.value(forKey: "views") as? Int64 } == [198, 199, 1000])
        }
    }

    @Test("a nested context's limited fetch with an unsaved change asks its parent for a limited number of IDs")
    func nestedLimitWithPendingChange() throws {
        let stack = try TestStack()
        let parent = stack.newContext()
        try parent.performAndWait { () throws in
            for i in 0..<100 { _ = try parent.insert("Post", ["title": "p\(i)", "views": i]) }
            try parent.save()
        }
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent)
        try child.performAndWait { () throws in
            var all = FetchRequest<ManagedObject>(entityName: "Post")
            all.sortDescriptors = [FetchSortDescriptor("views")]
            all.fetchLimit = 1
            let first = try #require(try child.fetch(all).first)
            first.setValue(500, forKey: "views")
            var request = all
            request.fetchLimit = 3
            request.fetchOffset = 1
            #expect(try child.fetch(request).map { $0.value(forKey: "views") as? Int64 } == [2, 3, 4])
            request.fetchOffset = 97
            #expect(try child.fetch(request).map { $0.value(forKey: "views") as? Int64 } == [98, 99, 500])
        }
    }

    @Test("a batch size still makes faults loaded a batch at a time when there are unsaved changes")
    func batchSizeWithPendingChange() throws {
        let stack = try TestStack(recordSQL: true)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for i in 0..<50 { _ = try context.insert("Post", ["title": "p\(i)", "views": i]) }
            try context.save()
        }
        let (reader, store) = try stack.reopenedContextRecording()
        try reader.performAndWait { () throws in
            _ = try reader.insert("Post", ["title": "new", "views": 500])
            store.resetRecordedSQL()
            var request = FetchRequest<ManagedObject>(entityName: "Post")
            request.fetchBatchSize = 10
            let posts = try reader.fetch(request)
            #expect(posts.count == 51)
            // Keys only; rows are read a batch at a time when the faults fire.
            let selects = (store.recordedSQL ?? []).filter { $0.hasPrefix("SELECT") && $0.contains("ZPOST") }
            #expect(selects == [selects.first].compactMap { $0 } && selects.first?.hasPrefix("SELECT t0.Z_PK, t0.Z_ENT FROM") == true, "\(selects)")
            _ = posts[0].value(forKey: "title")
            let afterFiring = (store.recordedSQL ?? []).filter { $0.hasPrefix("SELECT") && $0.contains("ZPOST") }
            #expect(afterFiring.count == 2, "\(afterFiring)")
        }
    }

    @Test("resultType .dictionary on an object request is a typeMismatch, not an empty array")
    func dictionaryOnObjectRequest() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            _ = try context.insert("Post", ["title": "p"])
            try context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Post")
            request.resultType = .dictionary
            #expect { try context.fetch(request) } throws: { ($0 as? NimbusError)?.code == .typeMismatch }
            request.resultType = .managedObjectID
            #expect { try context.fetch(request) } throws: { ($0 as? NimbusError)?.code == .typeMismatch }
        }
    }

    @Test("Core Data option keys that map are honoured")
    func honouredOptions() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            _ = try context.insert("Post", ["title": "p"])
            try context.save()
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: stack.model)
        var description = PersistentStoreDescription(url: stack.url)
        description.options["NSReadOnlyPersistentStoreOption"] = "true"
        description.options["NSPersistentStoreTimeoutOption"] = "2"
        let store = try coordinator.addPersistentStore(with: description)
        #expect(store.isReadOnly)
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try reader.performAndWait { () throws in
            _ = try reader.insert("Post", ["title": "refused"])
            #expect { try reader.save() } throws: { ($0 as? NimbusError)?.code == .readOnlyStore }
        }
    }

    // Keys with no counterpart are accepted with a warning since issue 28 (StoreOptionKeyTests).
    @Test("a Core Data option key with a malformed value is refused with the key named", arguments: [
        ["NSReadOnlyPersistentStoreOption": "maybe"],
        ["NSPersistentStoreTimeoutOption": "soon"],
    ])
    func refusedOptions(_ options: [String: String]) throws {
        let folder = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try PostsModel.make())
        var description = PersistentStoreDescription(url: folder.file("Posts.sqlite"))
        description.options = options
        do {
            _ = try coordinator.addPersistentStore(with: description)
            Issue.record("options \(options) were accepted")
        } catch let error as NimbusError {
            #expect(error.code == .invalidArgument)
            for key in options.keys { #expect(error.message.contains(key), "\(error.message)") }
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("Posts.sqlite").path), "a refused store was created")
    }
}
