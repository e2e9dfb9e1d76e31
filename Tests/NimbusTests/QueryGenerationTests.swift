import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

@Suite("Query generations")
struct QueryGenerationTests {
    private func titles(_ context: ManagedObjectContext) throws -> [String] {
        try context.all("Post", sortedBy: "title").compactMap { $0.value(forKey: "title") as? String }
    }

    @Test("a pinned context sees one snapshot for fetches and faults until it moves on")
    func pinnedSnapshot() throws {
        let stack = try TestStack()
        let writer = stack.newContext()
        let ids = try writer.performAndWait { () throws in
            let a = try writer.insert("Post", ["title": "a"])
            let b = try writer.insert("Post", ["title": "b"])
            try writer.save()
            return (a.objectID, b.objectID)
        }
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            try reader.setQueryGenerationFrom(.current)
            #expect(try titles(reader) == ["a", "b"])
            #expect(reader.queryGenerationToken != nil && reader.queryGenerationToken != .current)
            try writer.performAndWait { () throws in
                writer.object(with: ids.0).setValue("a2", forKey: "title")
                writer.delete(writer.object(with: ids.1))
                _ = try writer.insert("Post", ["title": "c"])
                try writer.save()
            }
            // Fetches and faults still see the pinned generation, even for the deleted row.
            #expect(try titles(reader) == ["a", "b"])
            // Resetting moves to the latest generation, where b is gone.
            reader.reset()
            let fault = reader.object(with: ids.1)
            #expect(fault.value(forKey: "title") == nil)
            #expect(try titles(reader) == ["a2", "c"])
        }
        // A fresh pin on a token taken before the writes: faults of deleted rows are fulfilled.
        let early = stack.newContext()
        let late = stack.newContext()
        try early.performAndWait { () throws in
            try early.setQueryGenerationFrom(.current)
            _ = try titles(early)
            let token = try #require(early.queryGenerationToken)
            try writer.performAndWait { () throws in
                let post = try #require(try writer.all("Post").first { $0.value(forKey: "title") as? String == "c" })
                writer.delete(post)
                try writer.save()
            }
            try late.performAndWait { () throws in
                try late.setQueryGenerationFrom(token)
                let c = try #require(try late.all("Post").first { $0.value(forKey: "title") as? String == "c" })
                late.refresh(c, mergeChanges: false)
                #expect(c.value(forKey: "title") as? String == "c", "the row deleted since the token is still there for the pinned context")
                try late.setQueryGenerationFrom(nil)
                #expect(try titles(late) == ["a2"])
            }
            #expect(try titles(early).contains("c"))
        }
    }

    @Test("saving, merging and resetting move a .current-pinned context to the latest generation")
    func advancing() throws {
        let stack = try TestStack()
        let writer = stack.newContext()
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            try reader.setQueryGenerationFrom(.current)
            #expect(try titles(reader).isEmpty)
            try writer.performAndWait { () throws in
                _ = try writer.insert("Post", ["title": "x"])
                try writer.save()
            }
            #expect(try titles(reader).isEmpty)
            _ = try reader.insert("Tag", ["name": "mine"])
            try reader.save()
            #expect(try titles(reader) == ["x"])
            try writer.performAndWait { () throws in
                _ = try writer.insert("Post", ["title": "y"])
                try writer.save()
            }
            #expect(try titles(reader) == ["x"])
            reader.reset()
            #expect(try titles(reader) == ["x", "y"])
        }
    }

    @Test("stores added after a token are outside it; a token with no stores left is an error")
    func storesAndTokens() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            try context.setQueryGenerationFrom(.current)
            _ = try titles(context)
            let token = try #require(context.queryGenerationToken)
            #expect(token.stores == [stack.store.identifier])
            try stack.coordinator.removePersistentStore(stack.store)
            let other = stack.newContext()
            #expect { try other.performAndWait { try other.setQueryGenerationFrom(token) } } throws: { ($0 as? NimbusError)?.code == .invalidToken }
        }
    }

    @Test("an in-memory store has a single generation")
    func inMemorySingleGeneration() throws {
        let stack = try TestStack(type: .inMemory)
        let writer = stack.newContext()
        let reader = stack.newContext()
        try reader.performAndWait { () throws in
            try reader.setQueryGenerationFrom(.current)
            #expect(try titles(reader).isEmpty)
            try writer.performAndWait { () throws in
                _ = try writer.insert("Post", ["title": "m"])
                try writer.save()
            }
            #expect(try titles(reader) == ["m"])
        }
    }
}
