import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

@Suite("Context lifecycle")
struct ContextLifecycleTests {
    @Test("changed and committed values, state flags and rollback")
    func changesAndRollback() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let post = try context.insert("Post", ["title": "draft", "views": 1])
            #expect(post.isInserted && !post.isUpdated && context.hasChanges)
            #expect(context.insertedObjects == [post])
            try context.save()
            #expect(!post.isInserted && !context.hasChanges)
            post.setValue("final", forKey: "title")
            #expect(post.isUpdated)
            #expect(context.updatedObjects == [post])
            #expect(post.changedValues().keys.sorted() == ["title"])
            #expect(post.committedValues(forKeys: ["title"])["title"] as? String == "draft")
            post.setValue("draft", forKey: "title")
            #expect(!post.isUpdated, "setting the saved value back is no change")
            post.setValue("other", forKey: "title")
            let extra = try context.insert("Post", ["title": "extra"])
            context.rollback()
            #expect(post.value(forKey: "title") as? String == "draft")
            #expect(extra.managedObjectContext == nil)
            #expect(!context.hasChanges)
            #expect(try context.all("Post").count == 1)
        }
    }

    @Test("reset forgets objects; object(with:) gives a fault for a saved ID")
    func reset() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let post = try context.insert("Post", ["title": "a"])
            try context.save()
            let id = post.objectID
            context.reset()
            #expect(context.registeredObject(for: id) == nil)
            let again = context.object(with: id)
            #expect(again !== post)
            #expect(again.isFault)
            #expect(again.value(forKey: "title") as? String == "a")
            #expect(context.object(with: id) === again, "one object per ID per context")
        }
    }

    @Test("refresh picks up another context's save, keeping or dropping local changes")
    func refresh() throws {
        let stack = try TestStack()
        let first = stack.newContext()
        let second = stack.newContext()
        let id = try first.performAndWait { () throws in
            let post = try first.insert("Post", ["title": "a", "views": 1])
            try first.save()
            return post.objectID
        }
        try second.performAndWait { () throws in
            let post = try second.existingObject(with: id)
            #expect(post.value(forKey: "title") as? String == "a")
            try first.performAndWait { () throws in
                let mine = first.object(with: id)
                mine.setValue("b", forKey: "title")
                mine.setValue(2, forKey: "views")
                try first.save()
            }
            post.setValue(99, forKey: "views")
            second.refresh(post, mergeChanges: true)
            #expect(post.value(forKey: "title") as? String == "b")
            #expect(post.value(forKey: "views") as? Int64 == 99)
            second.refresh(post, mergeChanges: false)
            #expect(post.value(forKey: "views") as? Int64 == 2)
        }
    }

    @Test("saving over another context's newer save is a merge conflict, and nothing is written")
    func optimisticLocking() throws {
        let stack = try TestStack()
        let first = stack.newContext()
        let second = stack.newContext()
        let id = try first.performAndWait { () throws in
            let post = try first.insert("Post", ["title": "a"])
            try first.save()
            return post.objectID
        }
        try second.performAndWait { () throws in
            let stale = try second.existingObject(with: id)
            try first.performAndWait { () throws in
                first.object(with: id).setValue("first", forKey: "title")
                try first.save()
            }
            stale.setValue("second", forKey: "title")
            _ = try second.insert("Post", ["title": "new"])
            #expect { try second.save() } throws: { ($0 as? NimbusError)?.code == .mergeConflict }
        }
        let reopened = try stack.reopenedContext()
        let titles = try reopened.performAndWait { try reopened.all("Post").compactMap { $0.value(forKey: "title") as? String } }
        #expect(titles == ["first"])
    }

    @Test("permanent IDs before save, URIs back to IDs, and unknown URIs")
    func identifiers() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let post = try context.insert("Post", ["title": "a"])
            try context.obtainPermanentIDs(for: [post])
            #expect(!post.objectID.isTemporaryID)
            let uri = post.objectID.uriRepresentation()
            try context.save()
            #expect(stack.coordinator.managedObjectID(forURIRepresentation: uri) == post.objectID)
            #expect(stack.coordinator.managedObjectID(forURIRepresentation: URL(string: "x-coredata://nope/Post/p1")!) == nil)
            #expect(stack.coordinator.managedObjectID(forURIRepresentation: URL(string: "https://example.com")!) == nil)
            let missing = ManagedObjectID(entity: post.entity, storeIdentifier: stack.store.identifier, primaryKey: 999)
            #expect { try context.existingObject(with: missing) } throws: { ($0 as? NimbusError)?.code == .objectNotFound }
        }
    }

    @Test("a fault for a row deleted elsewhere: nil values, or an error when asked")
    func inaccessibleFaults() throws {
        let stack = try TestStack()
        let writer = stack.newContext()
        let id = try writer.performAndWait { () throws in
            let post = try writer.insert("Post", ["title": "gone"])
            try writer.save()
            return post.objectID
        }
        let reader = try stack.reopenedContext()
        try reader.performAndWait { () throws in
            let fault = reader.object(with: id)
            try writer.performAndWait { () throws in
                writer.delete(writer.object(with: id))
                try writer.save()
            }
            #expect(fault.value(forKey: "title") == nil)
            reader.shouldDeleteInaccessibleFaults = false
            let other = ManagedObjectID(entity: id.entity, storeIdentifier: id.storeIdentifier, primaryKey: 7)
            #expect { try reader.object(with: other).fireFault() } throws: { ($0 as? NimbusError)?.code == .inaccessibleFault }
        }
    }
}
