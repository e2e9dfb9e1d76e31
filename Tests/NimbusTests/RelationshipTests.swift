import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

@Suite("Relationships and delete rules")
struct RelationshipTests {
    @Test("setting one side keeps the inverse consistent in memory")
    func inverses() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let ada = try context.insert("Person", ["name": "Ada"])
            let bob = try context.insert("Person", ["name": "Bob"])
            let post = try context.insert("Post", ["title": "p", "author": ada])
            #expect((ada.value(forKey: "posts") as? Set<ManagedObject>) == [post])
            post.setValue(bob, forKey: "author")
            #expect((ada.value(forKey: "posts") as? Set<ManagedObject>)?.isEmpty == true)
            #expect((bob.value(forKey: "posts") as? Set<ManagedObject>) == [post])
            // One-to-one: taking a partner away from someone else clears their side.
            let carl = try context.insert("Person", ["name": "Carl"])
            ada.setValue(bob, forKey: "bestFriend")
            carl.setValue(bob, forKey: "bestFriend")
            #expect(ada.value(forKey: "bestFriend") == nil)
            #expect((bob.value(forKey: "bestFriendOf") as? ManagedObject) === carl)
            // Many-to-many from either side.
            let swift = try context.insert("Tag", ["name": "swift"])
            let linux = try context.insert("Tag", ["name": "linux"])
            try post.addObjects([swift, linux], toRelationship: "tags")
            #expect((swift.value(forKey: "posts") as? Set<ManagedObject>) == [post])
            try linux.removeObjects([post], fromRelationship: "posts")
            #expect((post.value(forKey: "tags") as? Set<ManagedObject>) == [swift])
            try context.save()
        }
        let reopened = try stack.reopenedContext()
        try reopened.performAndWait { () throws in
            let post = try #require(try reopened.all("Post").first)
            #expect((post.value(forKey: "author") as? ManagedObject)?.value(forKey: "name") as? String == "Bob")
            let tags = try #require(post.value(forKey: "tags") as? Set<ManagedObject>)
            #expect(tags.compactMap { $0.value(forKey: "name") as? String } == ["swift"])
            let bob = try #require(post.value(forKey: "author") as? ManagedObject)
            #expect((bob.value(forKey: "bestFriendOf") as? ManagedObject)?.value(forKey: "name") as? String == "Carl")
        }
    }

    @Test("ordered to-many relationships keep their order through a save")
    func ordered() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let post = try context.insert("Post", ["title": "p"])
            let files = try (0..<4).map { try context.insert("FileAttachment", ["fileName": "f\($0)", "size": $0]) }
            post.setValue([files[2], files[0], files[3], files[1]], forKey: "attachments")
            try context.save()
        }
        let reopened = try stack.reopenedContext()
        try reopened.performAndWait { () throws in
            let post = try #require(try reopened.all("Post").first)
            let names = (post.value(forKey: "attachments") as? [ManagedObject])?.compactMap { $0.value(forKey: "fileName") as? String }
            #expect(names == ["f2", "f0", "f3", "f1"])
            #expect((post.value(forKey: "attachments") as? [ManagedObject])?.first?.entity.name == "FileAttachment")
        }
    }

    @Test("cascade deletes follow relationships; nullify clears inverses")
    func cascadeAndNullify() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let ada = try context.insert("Person", ["name": "Ada"])
            let bob = try context.insert("Person", ["name": "Bob", "bestFriend": ada])
            let post = try context.insert("Post", ["title": "p", "author": ada])
            _ = try context.insert("ImageAttachment", ["fileName": "i", "post": post])
            _ = bob
            try context.save()
            context.delete(ada)
            try context.save()
            #expect(try context.all("Post").isEmpty)
            #expect(try context.all("Attachment").isEmpty)
            let people = try context.all("Person")
            #expect(people.count == 1)
            #expect(people[0].value(forKey: "bestFriend") == nil)
        }
        let reopened = try stack.reopenedContext()
        try reopened.performAndWait { () throws in
            #expect(try reopened.all("Post").isEmpty)
            #expect(try reopened.all("Person").first?.value(forKey: "bestFriend") == nil)
        }
    }

    @Test("a deny rule blocks the delete with an error and changes nothing")
    func deny() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let tag = try context.insert("Tag", ["name": "t"])
            let post = try context.insert("Post", ["title": "p"])
            try post.addObjects([tag], toRelationship: "tags")
            try context.save()
            context.delete(tag)
            #expect { try context.save() } throws: { ($0 as? NimbusError)?.code == .deleteDenied }
            context.rollback()
            #expect(!tag.isDeleted)
            #expect((post.value(forKey: "tags") as? Set<ManagedObject>) == [tag])
            // Deleting the post first empties the tag's posts; then the tag may go.
            context.delete(post)
            try context.save()
            context.delete(tag)
            try context.save()
            #expect(try context.all("Tag").isEmpty)
        }
    }

    @Test("sub-entities are fetched through their parent and share its table")
    func inheritance() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            _ = try context.insert("ImageAttachment", ["fileName": "a.png", "width": 10])
            _ = try context.insert("FileAttachment", ["fileName": "b.txt", "size": 5])
            try context.save()
            let all = try context.all("Attachment", sortedBy: "fileName")
            #expect(all.map(\.entity.name) == ["ImageAttachment", "FileAttachment"])
            #expect(all[0].value(forKey: "width") as? Int32 == 10)
            var onlyParent = FetchRequest<ManagedObject>(entityName: "Attachment")
            onlyParent.includesSubentities = false
            #expect(try context.fetch(onlyParent).isEmpty)
            #expect(try context.all("ImageAttachment").count == 1)
        }
    }
}
