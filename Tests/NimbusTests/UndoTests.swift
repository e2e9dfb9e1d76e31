import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

@Suite("Undo")
struct UndoTests {
    @Test("each event is one step: undo and redo of an edit, an insert and a delete")
    func steps() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let post = try context.insert("Post", ["title": "a"])
            try context.save()
            context.undoManager = ContextUndoManager()
            let undo = try #require(context.undoManager)
            #expect(!undo.canUndo)

            post.setValue("b", forKey: "title")
            try context.processPendingChanges()
            let tag = try context.insert("Tag", ["name": "t"])
            try context.processPendingChanges()
            context.delete(post)
            try context.processPendingChanges()
            #expect(post.isDeleted)

            undo.undo()
            #expect(!post.isDeleted && post.value(forKey: "title") as? String == "b")
            undo.undo()
            #expect(tag.managedObjectContext == nil && context.insertedObjects.isEmpty)
            undo.undo()
            #expect(post.value(forKey: "title") as? String == "a" && !context.hasChanges)
            #expect(!undo.canUndo && undo.canRedo)

            undo.redo()
            #expect(post.value(forKey: "title") as? String == "b" && post.isUpdated)
            undo.redo()
            #expect(tag.managedObjectContext === context && context.insertedObjects == [tag])
            try context.save()
            #expect(!undo.canUndo && !undo.canRedo, "a save clears the steps")
        }
        let reader = try stack.reopenedContext()
        try reader.performAndWait { () throws in
            #expect(try reader.all("Post").first?.value(forKey: "title") as? String == "b")
            #expect(try reader.all("Tag").count == 1)
        }
    }

    @Test("undo of a relationship change restores both sides")
    func relationships() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let person = try context.insert("Person", ["name": "Ann"])
            let post = try context.insert("Post", ["title": "p"])
            try context.save()
            context.undoManager = ContextUndoManager()
            post.setValue(person, forKey: "author")
            try context.processPendingChanges()
            #expect((person.value(forKey: "posts") as? Set<ManagedObject>) == [post])
            context.undoManager?.undo()
            #expect(post.value(forKey: "author") == nil)
            #expect((person.value(forKey: "posts") as? Set<ManagedObject>)?.isEmpty == true)
            #expect(!context.hasChanges)
            context.undoManager?.redo()
            #expect((person.value(forKey: "posts") as? Set<ManagedObject>) == [post])
        }
    }

    @Test("grouping by hand makes several events one step; undo ends the open event first")
    func grouping() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let post = try context.insert("Post", ["title": "a"])
            try context.save()
            let undo = ContextUndoManager()
            context.undoManager = undo
            undo.beginUndoGrouping()
            post.setValue("b", forKey: "title")
            try context.processPendingChanges()
            post.setValue("c", forKey: "title")
            try context.processPendingChanges()
            undo.endUndoGrouping()
            post.setValue("d", forKey: "title")
            undo.undo()   // the open event, not yet processed
            #expect(post.value(forKey: "title") as? String == "c")
            undo.undo()
            #expect(post.value(forKey: "title") as? String == "a")
        }
    }
}
