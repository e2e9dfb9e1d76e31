import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

@Suite("Persistent history")
struct HistoryTests {
    /// Three authors: an app inserts, a widget updates, a sync engine deletes.
    private func threeAuthors(_ stack: TestStack) throws -> (post: ManagedObjectID, tag: ManagedObjectID) {
        let app = stack.newContext()
        app.transactionAuthor = "app"
        app.name = "viewContext"
        let ids = try app.performAndWait { () throws in
            let post = try app.insert("Post", ["title": "a", "views": 1])
            let tag = try app.insert("Tag", ["name": "swift"])
            try app.save()
            return (post.objectID, tag.objectID)
        }
        let widget = stack.newContext()
        widget.transactionAuthor = "widget"
        try widget.performAndWait { () throws in
            let post = try widget.existingObject(with: ids.0)
            post.setValue(2, forKey: "views")
            post.setValue("b", forKey: "title")
            try widget.save()
        }
        let sync = stack.newContext()
        sync.transactionAuthor = "sync"
        try sync.performAndWait { () throws in
            sync.delete(try sync.existingObject(with: ids.1))
            try sync.save()
        }
        return ids
    }

    @Test("every save writes a transaction with its author and one change per object")
    func transactions() throws {
        let stack = try TestStack(history: true)
        let ids = try threeAuthors(stack)
        let context = stack.newContext()
        let result = try context.performAndWait { try context.execute(.fetchHistory(after: nil as PersistentHistoryToken?)) }
        #expect(result.transactions.map(\.author) == ["app", "widget", "sync"])
        #expect(result.transactions.map(\.transactionNumber) == [1, 2, 3])
        #expect(result.transactions[0].contextName == "viewContext")
        #expect(result.transactions[0].processID == String(ProcessInfo.processInfo.processIdentifier))
        let inserts = try #require(result.transactions[0].changes)
        #expect(Set(inserts.map(\.changedObjectID)) == [ids.post, ids.tag])
        #expect(inserts.allSatisfy { $0.changeType == .insert })
        let update = try #require(result.transactions[1].changes?.first)
        #expect(update.changeType == .update)
        #expect(update.updatedProperties == ["title", "views"])
        let delete = try #require(result.transactions[2].changes?.first)
        #expect(delete.changeType == .delete)
        #expect(delete.changedObjectID == ids.tag)
        #expect(delete.tombstone == ["name": .string("swift")])
    }

    @Test("fetch after a token, a date or a transaction; filter by author or entity; result types")
    func fetching() throws {
        let stack = try TestStack(history: true)
        _ = try threeAuthors(stack)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let all = try context.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
            let afterFirst = try context.execute(.fetchHistory(after: all[0].token)).transactions
            #expect(afterFirst.map(\.author) == ["widget", "sync"])
            #expect(try context.execute(.fetchHistory(after: all[1])).transactions.map(\.author) == ["sync"])
            #expect(try context.execute(.fetchHistory(after: Date.distantPast)).count == 3)
            #expect(try context.execute(.fetchHistory(after: Date.distantFuture)).count == 0)

            var byAuthor = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
            byAuthor.transactionPredicate = try QueryPredicate(format: "author != %@", "app")
            #expect(try context.execute(byAuthor).transactions.map(\.author) == ["widget", "sync"])

            var byEntity = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
            byEntity.changePredicate = try QueryPredicate(format: "changedEntity == 'Tag'")
            let tagHistory = try context.execute(byEntity).transactions
            #expect(tagHistory.map(\.author) == ["app", "sync"])
            #expect(tagHistory.allSatisfy { $0.changes?.allSatisfy { $0.changedObjectID.entity.name == "Tag" } == true })

            var count = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
            count.resultType = .count
            let counted = try context.execute(count)
            #expect(counted.count == 3 && counted.transactions.isEmpty)
            var only = PersistentHistoryChangeRequest.fetchHistory(after: nil as PersistentHistoryToken?)
            only.resultType = .transactionsOnly
            #expect(try context.execute(only).transactions.allSatisfy { $0.changes == nil })
        }
    }

    @Test("tokens are Codable, comparable, and survive a relaunch")
    func tokens() throws {
        let stack = try TestStack(history: true)
        _ = try threeAuthors(stack)
        let token = try #require(try stack.coordinator.currentPersistentHistoryToken())
        #expect(token.transactionNumber == 3)
        let data = try JSONEncoder().encode(token)
        let decoded = try JSONDecoder().decode(PersistentHistoryToken.self, from: data)
        #expect(decoded == token)
        #expect(try PersistentHistoryToken(string: token.description) == token)
        #expect(PersistentHistoryToken(storeIdentifier: token.storeIdentifier, transactionNumber: 1) < token)
        let relaunched = try stack.reopenedContext(history: true)
        try relaunched.performAndWait { () throws in
            _ = try relaunched.insert("Tag", ["name": "new"])
            try relaunched.save()
            let after = try relaunched.execute(.fetchHistory(after: decoded)).transactions
            #expect(after.map(\.transactionNumber) == [4])
        }
    }

    @Test("bad tokens: another store's, malformed, from the future")
    func badTokens() throws {
        let stack = try TestStack(history: true)
        _ = try threeAuthors(stack)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let foreign = PersistentHistoryToken(storeIdentifier: UUID().uuidString, transactionNumber: 1)
            #expect { try context.execute(.fetchHistory(after: foreign)) } throws: { ($0 as? NimbusError)?.code == .invalidToken }
            let future = PersistentHistoryToken(storeIdentifier: stack.store.identifier, transactionNumber: 99)
            #expect { try context.execute(.fetchHistory(after: future)) } throws: { ($0 as? NimbusError)?.code == .invalidToken }
            #expect { try context.execute(.deleteHistory(before: future)) } throws: { ($0 as? NimbusError)?.code == .invalidToken }
            #expect(try context.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).count == 3, "nothing was purged")
        }
        #expect { try PersistentHistoryToken(string: "garbage") } throws: { ($0 as? NimbusError)?.code == .invalidToken }
        #expect(throws: (any Error).self) { try JSONDecoder().decode(PersistentHistoryToken.self, from: Data("{\"x\":1}".utf8)) }
    }

    @Test("purging stops at the slowest registered consumer unless forced")
    func purgeGatekeeper() throws {
        let stack = try TestStack(history: true)
        _ = try threeAuthors(stack)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let all = try context.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
            try stack.coordinator.setHistoryToken(all[0].token, forConsumer: "widget")
            try stack.coordinator.setHistoryToken(all[2].token, forConsumer: "app")
            #expect { try context.execute(.deleteHistory(before: all[1].token)) } throws: { error in
                guard let error = error as? NimbusError, error.code == .historyPurgeRefused else { return false }
                return error.message.contains("widget")
            }
            #expect(try context.execute(.deleteHistory(before: all[0].token)).count == 1)
            #expect(try context.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions.map(\.transactionNumber) == [2, 3])
            var forced = PersistentHistoryChangeRequest.deleteHistory(before: all[1].token)
            forced.ignoresConsumers = true
            #expect(try context.execute(forced).count == 1)
            #expect(try stack.coordinator.historyConsumers(ofStore: stack.store)["app"]?.transactionNumber == 3)
            try stack.coordinator.removeHistoryConsumer("widget", fromStore: stack.store)
            #expect(try context.execute(.deleteHistory(before: nil as PersistentHistoryToken?)).count == 1)
            // Numbers are never reused after a purge.
            _ = try context.insert("Tag", ["name": "later"])
            try context.save()
            #expect(try context.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions.map(\.transactionNumber) == [4])
        }
    }

    @Test("a context merges history written by another coordinator and sees the changes")
    func mergeFromHistory() throws {
        let stack = try TestStack(history: true)
        let viewer = stack.newContext()
        let holder = ObjectHolder()
        let start = try viewer.performAndWait { () throws -> PersistentHistoryToken? in
            let post = try viewer.insert("Post", ["title": "v1"])
            try viewer.save()
            holder.object = post
            return try stack.coordinator.currentPersistentHistoryToken()
        }
        // Another "process": its own coordinator on the same file.
        let other = try stack.reopenedContext(history: true)
        other.transactionAuthor = "other"
        try other.performAndWait { () throws in
            let post = try #require(try other.all("Post").first)
            post.setValue("v2", forKey: "title")
            _ = try other.insert("Post", ["title": "new"])
            try other.save()
        }
        try viewer.performAndWait { () throws in
            let post = try #require(holder.object)
            #expect(post.value(forKey: "title") as? String == "v1", "not merged yet")
            var request = PersistentHistoryChangeRequest.fetchHistory(after: start)
            request.transactionPredicate = try QueryPredicate(format: "author == 'other'")
            let transactions = try viewer.execute(request).transactions
            #expect(transactions.count == 1)
            viewer.mergeChanges(fromHistory: transactions)
            #expect(post.value(forKey: "title") as? String == "v2")
            #expect(try viewer.all("Post").count == 2)
        }
    }

    @Test("a store without history tracking records nothing")
    func trackingOff() throws {
        let stack = try TestStack()
        _ = try threeAuthors(stack)
        let context = stack.newContext()
        let count = try context.performAndWait { try context.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).count }
        #expect(count == 0)
    }
}
