import Foundation
import GRDB
import Testing
@testable import Nimbus
import NimbusTesting

@Suite("Saving and fetching")
struct ContextSaveFetchTests {
    @Test("saved objects come back from a fresh coordinator with every attribute type")
    func roundTrip() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        let date = Date(timeIntervalSinceReferenceDate: 700_000_000.5)
        let uuid = UUID()
        try context.performAndWait { () throws in
            let author = try context.insert("Person", ["name": "Ada", "age": 36])
            let post = try context.insert("Post", [
                "title": "Hello", "views": 42, "rating": 4.5, "published": true, "createdAt": date,
                "identifier": uuid, "link": URL(string: "https://example.com/a")!, "price": Decimal(string: "19.99")!,
                "thumbnail": Data([1, 2, 3]), "author": author,
            ])
            #expect(post.objectID.isTemporaryID)
            try context.save()
            #expect(!post.objectID.isTemporaryID)
            #expect(post.objectID.uriRepresentation().absoluteString == "x-coredata://\(stack.store.identifier)/Post/p1")
        }
        let reopened = try stack.reopenedContext()
        try reopened.performAndWait { () throws in
            let posts = try reopened.all("Post")
            #expect(posts.count == 1)
            let post = try #require(posts.first)
            #expect(post.value(forKey: "title") as? String == "Hello")
            #expect(post.value(forKey: "views") as? Int64 == 42)
            #expect(post.value(forKey: "rating") as? Double == 4.5)
            #expect(post.value(forKey: "published") as? Bool == true)
            #expect(post.value(forKey: "createdAt") as? Date == date)
            #expect(post.value(forKey: "identifier") as? UUID == uuid)
            #expect(post.value(forKey: "link") as? URL == URL(string: "https://example.com/a"))
            #expect(post.value(forKey: "price") as? Decimal == Decimal(string: "19.99"))
            #expect(post.value(forKey: "thumbnail") as? Data == Data([1, 2, 3]))
            let author = try #require(post.value(forKey: "author") as? ManagedObject)
            #expect(author.value(forKey: "name") as? String == "Ada")
            #expect(author.value(forKey: "age") as? Int16 == 36)
            let authored = try #require(author.value(forKey: "posts") as? Set<ManagedObject>)
            #expect(authored == [post])
        }
    }

    @Test("rows are stored in Core Data's layout")
    func storeLayout() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let post = try context.insert("Post", ["title": "t", "published": true, "createdAt": Date(timeIntervalSinceReferenceDate: 10)])
            let tag = try context.insert("Tag", ["name": "swift"])
            try post.addObjects([tag], toRelationship: "tags")
            try context.save()
            post.setValue("u", forKey: "title")
            try context.save()
        }
        let queue = try DatabaseQueue(path: stack.url.path)
        try queue.read { db in
            let row = try #require(try Row.fetchOne(db, sql: "SELECT Z_PK, Z_ENT, Z_OPT, ZTITLE, ZPUBLISHED, ZCREATEDAT FROM ZPOST"))
            #expect(row["Z_PK"] == 1)
            #expect(row["Z_ENT"] == 5)
            #expect(row["Z_OPT"] == 2)
            #expect(row["ZTITLE"] == "u")
            #expect(row["ZPUBLISHED"] == 1)
            #expect(row["ZCREATEDAT"] == 10.0)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM Z_5TAGS WHERE Z_5POSTS = 1 AND Z_6TAGS = 1") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Post'") == 1)
            let plistData = try #require(try Data.fetchOne(db, sql: "SELECT Z_PLIST FROM Z_METADATA"))
            let plist = try #require(try PropertyListSerialization.propertyList(from: plistData, format: nil) as? [String: Any])
            #expect(plist["NSStoreType"] as? String == "SQLite")
            #expect((plist["NSStoreModelVersionHashes"] as? [String: Any])?.count == 6)
            #expect(try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal")
        }
    }

    @Test("a save with invalid objects throws one error naming every failure and writes nothing")
    func validation() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            _ = try context.insert("Person", ["name": "Valid"])
            _ = try context.insert("Person", ["age": 200, "email": "not-an-email"])
            _ = try context.insert("Tag", [:])
            #expect {
                try context.save()
            } throws: { error in
                guard let error = error as? NimbusError, error.code == .validationFailed else { return false }
                let found = Set(error.validationFailures.map { "\($0.entityName).\($0.property)" })
                return found == ["Person.name", "Person.age", "Person.email", "Tag.name"]
            }
            #expect(context.hasChanges)
        }
        let reopened = try stack.reopenedContext()
        let people = try reopened.performAndWait { try reopened.all("Person") }
        #expect(people.isEmpty)
    }

    @Test("unknown entities, keys and wrong value types are typed errors")
    func badKeys() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            #expect(throws: NimbusError.self) { try context.insertNewObject(forEntityName: "Nope") }
            let post = try context.insertNewObject(forEntityName: "Post")
            #expect { try post.setValidatedValue(1, forKey: "nope") } throws: { ($0 as? NimbusError)?.code == .unknownProperty }
            #expect { try post.setValidatedValue("x", forKey: "views") } throws: { ($0 as? NimbusError)?.code == .typeMismatch }
            try post.setValidatedValue(70_000, forKey: "views")   // Int64 holds it
            let person = try context.insertNewObject(forEntityName: "Person")
            #expect { try person.setValidatedValue(70_000, forKey: "age") } throws: { ($0 as? NimbusError)?.code == .typeMismatch }
            #expect { try post.setValidatedValue(person, forKey: "tags") } throws: { ($0 as? NimbusError)?.code == .typeMismatch }
            #expect { try post.setValidatedValue(post, forKey: "author") } throws: { ($0 as? NimbusError)?.code == .typeMismatch }
            #expect(throws: NimbusError.self) { try context.insertNewObject(forEntityName: "Attachment") }
        }
    }

    @Test("fetches include unsaved inserts, leave out unsaved deletes, and judge unsaved edits")
    func pendingChanges() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for (title, views) in [("a", 1), ("b", 5), ("c", 10)] { _ = try context.insert("Post", ["title": title, "views": views]) }
            try context.save()
            let posts = try context.all("Post", sortedBy: "title")
            posts[0].setValue(100, forKey: "views")          // a now matches
            context.delete(posts[2])                           // c is gone
            _ = try context.insert("Post", ["title": "d", "views": 50])
            var request = FetchRequest<ManagedObject>(entityName: "Post")
            request.predicate = .comparison(.init(.keyPath(["views"]), .greaterThan, .constant(.integer(4))))
            request.sortDescriptors = [FetchSortDescriptor("title")]
            let titles = try context.fetch(request).map { $0.value(forKey: "title") as? String }
            #expect(titles == ["a", "b", "d"])
            #expect(try context.count(for: request) == 3)
            request.includesPendingChanges = false
            // Judged by the store's rows: a (1 there) does not match, c (deleted here) still does.
            #expect(try context.fetch(request).compactMap { $0.value(forKey: "title") as? String }.sorted() == ["b", "c"])
            request.includesPendingChanges = true
            request.fetchLimit = 2
            request.fetchOffset = 1
            #expect(try context.fetch(request).map { $0.value(forKey: "title") as! String } == ["b", "d"])
        }
    }

    @Test("sorting, limits, offsets, counts, IDs and dictionaries")
    func fetchShapes() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for i in 0..<20 { _ = try context.insert("Post", ["title": "post \(i % 5)", "views": i]) }
            try context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Post")
            request.sortDescriptors = [FetchSortDescriptor("views", ascending: false)]
            request.fetchLimit = 3
            request.fetchOffset = 2
            #expect(try context.fetch(request).map { $0.value(forKey: "views") as! Int64 } == [17, 16, 15])
            #expect(try context.count(for: request) == 3)

            var ids = FetchRequest<ManagedObjectID>(entityName: "Post")
            ids.sortDescriptors = [FetchSortDescriptor("views")]
            #expect(try context.fetch(ids).map(\.primaryKey) == Array(1...20).map(Int64.init))

            var dictionaries = FetchRequest<[String: Any]>(entityName: "Post")
            dictionaries.propertiesToFetch = ["title"]
            dictionaries.returnsDistinctResults = true
            dictionaries.sortDescriptors = [FetchSortDescriptor("title")]
            #expect(try context.fetch(dictionaries).map { $0["title"] as! String } == (0..<5).map { "post \($0)" })

            var grouped = FetchRequest<[String: Any]>(entityName: "Post")
            grouped.propertiesToFetch = ["title", .expression(name: "count", .function("count:", [.keyPath(["title"])]), type: .integer64)]
            grouped.propertiesToGroupBy = ["title"]
            grouped.havingPredicate = .comparison(.init(.keyPath(["count"]), .greaterThan, .constant(.integer(3))))
            grouped.sortDescriptors = [FetchSortDescriptor("title")]
            #expect(try context.fetch(grouped).count == 5, "every title has 4 posts")
            // One title with a fifth post: the clause now keeps only its group.
            _ = try context.insert("Post", ["title": "post 2", "views": 99])
            try context.save()
            grouped.havingPredicate = .comparison(.init(.keyPath(["count"]), .greaterThan, .constant(.integer(4))))
            let groups = try context.fetch(grouped)
            #expect(groups.map { $0["title"] as? String } == ["post 2"])
            #expect(groups.first?["count"] as? Int64 == 5)
        }
    }

    @Test("a fetch of several runs of rows keeps their order, and reuses registered objects and faults across runs")
    func fetchAcrossMaterializationRuns() throws {
        let stack = try TestStack()
        let count = ManagedObjectContext.materializationRun * 2 + 300
        let writer = stack.newContext()
        try writer.performAndWait { () throws in
            for index in 0..<count { _ = try writer.insert("Post", ["title": "post \(index)", "views": index]) }
            try writer.save()
        }
        let context = stack.newContext()
        try context.performAndWait { () throws in
            // Registered beforehand, the last row of the first run loaded and the first row
            // of the second a fault.
            let run = ManagedObjectContext.materializationRun
            var first = FetchRequest<ManagedObject>(entityName: "Post")
            first.predicate = try QueryPredicate(format: "views IN %@", [count - run, count - 1 - run])
            first.sortDescriptors = [FetchSortDescriptor("views", ascending: false)]
            first.returnsObjectsAsFaults = false
            let registered = try context.fetch(first)
            context.refresh(registered[1], mergeChanges: false)
            #expect(!registered[0].isFault && registered[1].isFault)

            var request = FetchRequest<ManagedObject>(entityName: "Post")
            request.sortDescriptors = [FetchSortDescriptor("views", ascending: false)]
            request.returnsObjectsAsFaults = false
            let posts = try context.fetch(request)
            #expect(posts.count == count)
            #expect(posts.map { $0.value(forKey: "views") as? Int64 } == (0..<count).reversed().map { Int64($0) })
            #expect(Set(posts.map(ObjectIdentifier.init)).count == count)
            #expect(posts[run - 1] === registered[0])
            #expect(posts[run] === registered[1] && !registered[1].isFault)
            #expect(posts.allSatisfy { !$0.isFault })
        }
    }
}
