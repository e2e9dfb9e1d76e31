import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

@Suite("Nested contexts")
struct NestedContextTests {
    @Test("a child sees its parent's unsaved changes and saves into the parent, not the store")
    func childSavesIntoParent() throws {
        let stack = try TestStack()
        let parent = stack.newContext()
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent)
        let (adaID, draftID) = try parent.performAndWait { () throws in
            let ada = try parent.insert("Person", ["name": "Ada"])
            try parent.save()
            let draft = try parent.insert("Post", ["title": "draft", "author": ada])   // unsaved in the parent
            return (ada.objectID, draft.objectID)
        }
        try child.performAndWait { () throws in
            let posts = try child.all("Post")
            #expect(posts.map(\.objectID) == [draftID], "the parent's unsaved insert is visible")
            let ada = try child.existingObject(with: adaID)
            #expect((ada.value(forKey: "posts") as? Set<ManagedObject>)?.map(\.objectID) == [draftID])
            posts[0].setValue("edited in child", forKey: "title")
            let tag = try child.insert("Tag", ["name": "new"])
            try posts[0].addObjects([tag], toRelationship: "tags")
            try child.save()
            #expect(!child.hasChanges)
        }
        // Nothing reached the store yet.
        let outsider = try stack.reopenedContext()
        #expect(try outsider.performAndWait { try outsider.all("Post").count } == 0)
        try parent.performAndWait { () throws in
            let draft = parent.object(with: draftID)
            #expect(draft.value(forKey: "title") as? String == "edited in child")
            #expect((draft.value(forKey: "tags") as? Set<ManagedObject>)?.first?.value(forKey: "name") as? String == "new")
            #expect(parent.hasChanges)
            try parent.save()
        }
        let after = try stack.reopenedContext()
        try after.performAndWait { () throws in
            let post = try #require(try after.all("Post").first)
            #expect(post.value(forKey: "title") as? String == "edited in child")
            #expect((post.value(forKey: "tags") as? Set<ManagedObject>)?.count == 1)
        }
    }

    @Test("a child's deletes and its own pending changes shape its fetches; IDs stay usable after the parent saves")
    func deletesAndIDs() throws {
        let stack = try TestStack()
        let parent = stack.newContext()
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent)
        try parent.performAndWait { () throws in
            for title in ["a", "b", "c"] { _ = try parent.insert("Post", ["title": title]) }
            try parent.save()
        }
        let newID = try child.performAndWait { () throws in
            var request = FetchRequest<ManagedObject>(entityName: "Post")
            request.sortDescriptors = [FetchSortDescriptor("title")]
            let posts = try child.fetch(request)
            child.delete(posts[1])
            let d = try child.insert("Post", ["title": "d"])
            #expect(try child.fetch(request).map { $0.value(forKey: "title") as? String } == ["a", "c", "d"])
            #expect(try child.count(for: request) == 3)
            try child.save()
            return d.objectID
        }
        #expect(newID.isTemporaryID)
        try parent.performAndWait { () throws in
            #expect(try parent.all("Post", sortedBy: "title").map { $0.value(forKey: "title") as? String } == ["a", "c", "d"])
            try parent.save()
        }
        try child.performAndWait { () throws in
            // The child learned the permanent ID; editing the object again reaches the same row.
            let d = child.object(with: newID)
            #expect(!d.objectID.isTemporaryID)
            d.setValue("d2", forKey: "title")
            try child.save()
        }
        try parent.performAndWait { () throws in
            try parent.save()
            #expect(try parent.all("Post", sortedBy: "title").map { $0.value(forKey: "title") as? String } == ["a", "c", "d2"])
        }
    }

    @Test("validation runs in the child; nested contexts are always unpinned")
    func validationAndGenerations() throws {
        let stack = try TestStack()
        let parent = stack.newContext()
        let child = ManagedObjectContext(concurrencyType: .privateQueue, parent: parent)
        try child.performAndWait { () throws in
            _ = try child.insert("Tag", [:])
            #expect { try child.save() } throws: { ($0 as? NimbusError)?.code == .validationFailed }
            #expect { try child.setQueryGenerationFrom(.current) } throws: { ($0 as? NimbusError)?.code == .invalidArgument }
            #expect(child.queryGenerationToken == nil)
        }
        #expect(try parent.performAndWait { try parent.all("Tag").count } == 0)
    }
}
