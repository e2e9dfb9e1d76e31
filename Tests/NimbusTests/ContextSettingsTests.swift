import Dispatch
import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// A context's settings are set the way Core Data apps set them: right after making the
/// context, on whatever thread made it (`context.mergePolicy = …` before any `perform`).
@Suite("Context settings from any thread")
struct ContextSettingsTests {
    @Test("name, author, merge policy and fault handling set off the queue take effect on it")
    func setOffQueue() throws {
        let stack = try TestStack(history: true)
        let seeder = stack.newContext()
        let id = try seeder.performAndWait { () throws in
            let post = try seeder.insert("Post", ["title": "a", "views": 1])
            try seeder.save()
            return post.objectID
        }

        // Configured on this (the test's) thread, as an app configures a new background context.
        let context = stack.newContext()
        context.name = "importer"
        context.transactionAuthor = "sync"
        context.mergePolicy = .mergeByPropertyObjectTrump
        context.shouldDeleteInaccessibleFaults = false
        #expect(context.name == "importer" && context.transactionAuthor == "sync")
        #expect(context.mergePolicy.type == .mergeByPropertyObjectTrump)
        #expect(context.shouldDeleteInaccessibleFaults == false)

        let post = try context.performAndWait { () throws in
            let post = try context.existingObject(with: id)
            _ = post.value(forKey: "title")
            return post
        }
        // Another writer changes the row after the context read it.
        let other = try stack.reopenedContext()
        try other.performAndWait { () throws in
            try other.existingObject(with: id).setValue("b", forKey: "title")
            try other.save()
        }
        try context.performAndWait { () throws in
            post.setValue(5, forKey: "views")
            // Object trump: the context's views, the store's title; with the default policy
            // this save would throw a merge conflict.
            try context.save()
            let history = try context.execute(.fetchHistory(after: nil as PersistentHistoryToken?))
            let last = try #require(history.transactions.last)
            #expect(last.author == "sync" && last.contextName == "importer")
        }
        let reader = try stack.reopenedContext()
        try reader.performAndWait { () throws in
            let saved = try reader.existingObject(with: id)
            #expect(saved.value(forKey: "title") as? String == "b")
            #expect(saved.value(forKey: "views") as? Int64 == 5)
        }
    }

    @Test("automatic merging turned on off the queue merges a sibling's save; turned off, it stops")
    func automaticMergingOffQueue() throws {
        let stack = try TestStack()
        let viewer = stack.newContext()
        viewer.automaticallyMergesChangesFromParent = true
        #expect(viewer.automaticallyMergesChangesFromParent)
        let writer = stack.newContext()
        let id = try writer.performAndWait { () throws in
            let post = try writer.insert("Post", ["title": "a"])
            try writer.save()
            return post.objectID
        }
        let post = try viewer.performAndWait { () throws in
            let post = try viewer.existingObject(with: id)
            #expect(post.value(forKey: "title") as? String == "a")
            return post
        }
        try writer.performAndWait { () throws in
            try writer.existingObject(with: id).setValue("b", forKey: "title")
            try writer.save()
        }
        // The merge runs on the viewer's queue after the save: wait for it (bounded).
        var merged = false
        for _ in 0..<200 where !merged {
            merged = viewer.performAndWait { post.value(forKey: "title") as? String == "b" }
            if !merged { Thread.sleep(forTimeInterval: 0.01) }
        }
        #expect(merged)

        viewer.automaticallyMergesChangesFromParent = false
        try writer.performAndWait { () throws in
            try writer.existingObject(with: id).setValue("c", forKey: "title")
            try writer.save()
        }
        // Anything the coordinator queued for the viewer would have run before this block.
        Thread.sleep(forTimeInterval: 0.05)
        #expect(viewer.performAndWait { post.value(forKey: "title") as? String } == "b")
    }

    @Test("settings changed from many threads while the context saves")
    func concurrentSettings() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        let names = (0..<64).map { "writer \($0)" }
        let saves = DispatchGroup()
        for index in 0..<8 {
            saves.enter()
            context.perform {
                defer { saves.leave() }
                do {
                    _ = try context.insert("Post", ["title": "post \(index)"])
                    try context.save()
                } catch {
                    Issue.record("save \(index) failed: \(error)")
                }
            }
        }
        DispatchQueue.concurrentPerform(iterations: names.count) { index in
            context.name = names[index]
            context.mergePolicy = index.isMultiple(of: 2) ? .mergeByPropertyStoreTrump : .mergeByPropertyObjectTrump
            context.transactionAuthor = names[index]
            _ = context.automaticallyMergesChangesFromParent
        }
        saves.wait()
        #expect(names.contains(context.name ?? ""))
        #expect([.mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump].contains(context.mergePolicy.type))
        #expect(try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: "Post")) } == 8)
    }
}
