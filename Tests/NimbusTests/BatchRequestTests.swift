import Foundation
import GRDB
import Testing
@testable import Nimbus
import NimbusTesting

@Suite("Batch requests")
struct BatchRequestTests {
    @Test("batch insert from dictionaries and from a handler, with IDs and defaults")
    func insert() throws {
        let stack = try TestStack(history: true)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            var request = BatchInsertRequest(entityName: "Post", objects: (0..<100).map { ["title": "p\($0)", "views": $0] })
            request.resultType = .objectIDs
            let result = try context.execute(request)
            #expect(result.count == 100 && result.objectIDs.count == 100)
            var produced = 0
            let handled = try context.execute(BatchInsertRequest(entityName: "Tag") { dictionary in
                guard produced < 10 else { return true }
                dictionary["name"] = "tag\(produced)"
                produced += 1
                return false
            })
            #expect(handled.count == 10)
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Post")) == 100)
            let first = try context.existingObject(with: result.objectIDs[0])
            #expect(first.value(forKey: "published") as? Bool == false, "defaults apply")
            let history = try context.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
            #expect(history.map { $0.changes?.count } == [100, 10])
            // A new object saved afterwards gets a fresh key: past every batch-inserted one.
            let after = try context.insert("Post", ["title": "after"])
            try context.save()
            let batchKeys = result.objectIDs.map(\.primaryKey)
            #expect(Set(batchKeys).count == 100)
            #expect(after.objectID.primaryKey > batchKeys.max()!, "\(after.objectID) reuses a batch-inserted key")
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Post")) == 101)
        }
    }

    @Test("optionals in dictionaries store what they wrap, nil as nil (batch inserts and setValue)")
    func optionalsInDictionaries() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        let subtitle: String? = nil, views: Int? = 3, rating: Double? = nil, link: URL? = URL(string: "https://example.com")
        try context.performAndWait { () throws in
            let result = try context.execute(BatchInsertRequest(entityName: "Post", objects: [
                ["title": "first", "body": subtitle as Any, "views": views as Any, "rating": rating as Any, "link": link as Any],
            ]))
            #expect(result.count == 1)
            let post = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Post")).first)
            #expect(post.value(forKey: "body") == nil)
            #expect(post.value(forKey: "views") as? Int64 == 3)
            #expect(post.value(forKey: "rating") == nil)
            #expect(post.value(forKey: "link") as? URL == link)
            let values: [String: Any] = ["title": Optional("second") as Any, "body": subtitle as Any]
            for (key, value) in values { try post.setValidatedValue(value, forKey: key) }
            #expect(post.value(forKey: "title") as? String == "second")
            #expect(post.value(forKey: "body") == nil)
            // An optional of the wrong type is still refused.
            #expect { try post.setValidatedValue(Optional("many") as Any, forKey: "views") } throws: {
                ($0 as? NimbusError)?.code == .typeMismatch
            }
            #expect(post.value(forKey: "views") as? Int64 == 3)
        }
    }

    @Test("bad batch inserts change nothing")
    func badInsert() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            #expect { try context.execute(BatchInsertRequest(entityName: "Post", objects: [["title": "ok"], ["views": "many"]])) } throws: {
                ($0 as? NimbusError)?.code == .typeMismatch
            }
            #expect { try context.execute(BatchInsertRequest(entityName: "Post", objects: [["nope": 1]])) } throws: {
                ($0 as? NimbusError)?.code == .unknownProperty
            }
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Post")) == 0)
        }
    }

    @Test("batch update sets values and expressions in SQL; merged contexts see them")
    func update() throws {
        let stack = try TestStack(history: true)
        let context = stack.newContext()
        let holder = ObjectHolder()
        try context.performAndWait { () throws in
            _ = try context.execute(BatchInsertRequest(entityName: "Post", objects: (0..<20).map { ["title": "p\($0)", "views": $0] }))
            let held = try #require(try context.all("Post", sortedBy: "views").last)
            holder.object = held
            var request = BatchUpdateRequest(entityName: "Post")
            request.predicate = try QueryPredicate(format: "views >= 10")
            request.propertiesToUpdate = ["published": true, "views": QueryExpression.function("add:to:", [.keyPath(["views"]), .constant(.integer(100))]),
                                          "body": QueryExpression.constant(.string("see t0.ZVIEWS"))]
            request.resultType = .objectIDs
            let result = try context.execute(request)
            #expect(result.count == 10 && result.objectIDs.count == 10)
            #expect(held.value(forKey: "views") as? Int64 == 19, "objects are not touched until merged")
            ManagedObjectContext.mergeChanges(fromRemoteContextSave: SaveNotification(updatedObjectIDs: Set(result.objectIDs)), into: [context])
            #expect(held.value(forKey: "views") as? Int64 == 119)
            var published = FetchRequest<ManagedObject>(entityName: "Post")
            published.predicate = try QueryPredicate(format: "published == YES AND views > 100")
            #expect(try context.count(for: published) == 10)
            let update = try #require(try context.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions.last)
            #expect(update.changes?.count == 10)
            #expect(update.changes?.first?.updatedProperties == ["body", "published", "views"])
            #expect(held.value(forKey: "body") as? String == "see t0.ZVIEWS")
            // A predicate through a relationship updates through a subquery.
            var byAuthor = BatchUpdateRequest(entityName: "Post")
            byAuthor.predicate = try QueryPredicate(format: "author.name == nil AND views > 115")
            byAuthor.propertiesToUpdate = ["views": QueryExpression.function("add:to:", [.keyPath(["views"]), .constant(.integer(1))])]
            byAuthor.resultType = .count
            #expect(try context.execute(byAuthor).count == 4)
            var bad = BatchUpdateRequest(entityName: "Post")
            bad.propertiesToUpdate = ["views": "lots"]
            #expect { try context.execute(bad) } throws: { ($0 as? NimbusError)?.code == .typeMismatch }
        }
    }

    @Test("batch delete applies cascade, nullify and deny set-wise")
    func delete() throws {
        let stack = try TestStack(history: true)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let ada = try context.insert("Person", ["name": "Ada"])
            let bob = try context.insert("Person", ["name": "Bob", "bestFriend": ada])
            let post = try context.insert("Post", ["title": "p", "author": ada])
            _ = try context.insert("ImageAttachment", ["fileName": "i", "post": post])
            let tag = try context.insert("Tag", ["name": "t"])
            try post.addObjects([tag], toRelationship: "tags")
            try context.save()
            // Tag's deny rule blocks deleting a tag that still has posts.
            var tags = FetchRequest<ManagedObject>(entityName: "Tag")
            tags.predicate = .truePredicate
            #expect { try context.execute(BatchDeleteRequest(fetchRequest: tags)) } throws: { ($0 as? NimbusError)?.code == .deleteDenied }
            // Deleting Ada cascades to her post and its attachment, nullifies Bob's best friend,
            // and clears the post's tag rows.
            var request = BatchDeleteRequest(objectIDs: [ada.objectID])
            request.resultType = .objectIDs
            let result = try context.execute(request)
            #expect(result.objectIDs == [ada.objectID])
            context.reset()
            #expect(try context.all("Post").isEmpty)
            #expect(try context.all("Attachment").isEmpty)
            let people = try context.all("Person")
            #expect(people.map { $0.value(forKey: "name") as? String } == ["Bob"])
            #expect(people[0].value(forKey: "bestFriend") == nil)
            #expect((try context.all("Tag").first?.value(forKey: "posts") as? Set<ManagedObject>)?.isEmpty == true)
            #expect(try context.execute(BatchDeleteRequest(fetchRequest: tags)).status)
            #expect(try context.all("Tag").isEmpty)
            _ = bob
            let deletes = try context.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions.dropFirst()
            #expect(deletes.first?.changes?.count == 3)
            #expect(deletes.last?.changes?.first?.tombstone == ["name": .string("t")])
        }
        let queue = try DatabaseQueue(path: stack.url.path)
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM Z_5TAGS") } == 0)
    }

    @Test("a plain batch delete is one DELETE statement")
    func fastDelete() throws {
        let model = try ManagedObjectModel {
            EntityDescription("Row") { AttributeDescription("n", .integer64) }
        }
        let stack = try TestStack(model: model, recordSQL: true)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            _ = try context.execute(BatchInsertRequest(entityName: "Row", objects: (0..<50).map { ["n": $0] }))
            stack.store.resetRecordedSQL()
            var fetch = FetchRequest<ManagedObject>(entityName: "Row")
            fetch.predicate = try QueryPredicate(format: "n < 20")
            var request = BatchDeleteRequest(fetchRequest: fetch)
            request.resultType = .count
            #expect(try context.execute(request).count == 20)
            let deletes = (stack.store.recordedSQL ?? []).filter { $0.hasPrefix("DELETE") }
            #expect(deletes == [#"DELETE FROM "ZROW" WHERE Z_PK IN (SELECT t0.Z_PK FROM "ZROW" t0 WHERE ((t0."ZN" < ?)) ORDER BY t0.Z_PK)"#])
            #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Row")) == 30)
        }
    }
}
