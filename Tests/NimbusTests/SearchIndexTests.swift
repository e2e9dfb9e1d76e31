import Foundation
import GRDB
import Testing
@testable import Nimbus
import NimbusTesting

@Suite("Search index (the Spotlight analog)")
struct SearchIndexTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription("Photo", attributes: [
                AttributeDescription("title", .string, isIndexedBySpotlight: true),
                AttributeDescription("caption", .string, isIndexedBySpotlight: true),
                AttributeDescription("secret", .string),
            ], relationships: [
                RelationshipDescription("tags", to: "Tag", inverse: "photos", toMany: true),
            ], spotlightDisplayNameProperty: "title"),
            EntityDescription("Tag", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("photos", to: "Photo", inverse: "tags", toMany: true),
            ]),
        ])
    }

    /// The seed's delegate: a photo's entry also lists its tags; a tag's change re-indexes its photos.
    struct PhotoSearch: SearchIndexDelegate {
        func indexes(_ entity: EntityDescription) -> Bool { ["Photo", "Tag"].contains(entity.name) }

        func searchableItem(for object: ManagedObject) throws -> SearchableItem? {
            guard object.entity.name == "Photo", var item = try defaultSearchableItem(for: object) else { return nil }
            let tags = object.value(forKey: "tags") as? Set<ManagedObject> ?? []
            item.text += tags.compactMap { $0.value(forKey: "name") as? String }.sorted()
            return item
        }

        func objectIDsToReindex(whenChanged object: ManagedObject) throws -> [ManagedObjectID] {
            guard object.entity.name == "Tag" else { return [] }
            return (object.value(forKey: "photos") as? Set<ManagedObject> ?? []).map(\.objectID)
        }
    }

    /// Fails while `failing` is set, to cut a batch short as a crash would.
    final class FailingDelegate: SearchIndexDelegate, @unchecked Sendable {
        var failing = false
        func searchableItem(for object: ManagedObject) throws -> SearchableItem? {
            if failing { throw NimbusError(.io, "simulated crash") }
            return try defaultSearchableItem(for: object)
        }
    }

    private func stack() throws -> TestStack { try TestStack(model: try Self.model(), history: true) }

    private func titles(_ results: [SearchResult]) -> [String] { results.compactMap(\.displayName) }

    @Test("search is case- and diacritic-insensitive, takes prefixes, and returns display names, ranks and highlighted snippets")
    func searches() throws {
        let stack = try stack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            _ = try context.insert("Photo", ["title": "Café Lumière", "caption": "the best café on the corner", "secret": "espresso"])
            _ = try context.insert("Photo", ["title": "Harbour", "caption": "boats at dusk"])
            _ = try context.insert("Photo", ["title": "Cafeteria", "caption": "lunch"])
            try context.save()
        }
        let indexer = try SearchIndexer(coordinator: stack.coordinator)
        let update = try indexer.indexPendingChanges()
        #expect(update.rebuilt)
        #expect(update.indexed == 3)

        let cafe = try indexer.search("CAFE")
        #expect(titles(cafe) == ["Café Lumière"])
        #expect(cafe[0].snippet.contains("[café]"))
        #expect(cafe[0].rank > 0)
        #expect(cafe[0].objectID.entity.name == "Photo")
        #expect(Set(titles(try indexer.search("cafe*"))) == ["Café Lumière", "Cafeteria"])
        #expect(titles(try indexer.search("\"best cafe\"")) == ["Café Lumière"])
        #expect(titles(try indexer.search("boats OR lunch")).sorted() == ["Cafeteria", "Harbour"])
        #expect(titles(try indexer.search("cafe* -lunch")) == ["Café Lumière"])
        #expect(try indexer.search("espresso").isEmpty)   // not marked for search
        #expect(try indexer.search("lumiere", limit: 0).isEmpty)
        #expect(titles(try indexer.search("dusk", in: ["Photo"])) == ["Harbour"])
        #expect(try indexer.search("dusk", in: ["Tag"]).isEmpty)
    }

    @Test("saves, updates and deletes reach the index from history; the cursor is the consumer's token")
    func followsHistory() throws {
        let stack = try stack()
        let indexer = try SearchIndexer(coordinator: stack.coordinator)
        try indexer.indexPendingChanges()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let a = try context.insert("Photo", ["title": "Alpine lake", "caption": "still water"])
            let b = try context.insert("Photo", ["title": "Desert", "caption": "dunes"])
            try context.save()
            #expect(try indexer.indexPendingChanges().indexed == 2)
            a.setValue("frozen water", forKey: "caption")
            context.delete(b)
            try context.save()
        }
        let update = try indexer.indexPendingChanges()
        #expect((update.indexed, update.removed) == (1, 1))
        #expect(titles(try indexer.search("frozen")) == ["Alpine lake"])
        #expect(try indexer.search("still").isEmpty)
        #expect(try indexer.search("dunes").isEmpty)
        let consumers = try stack.coordinator.historyConsumers(ofStore: stack.store)
        #expect(consumers["NimbusSearchIndex"] == (try stack.coordinator.currentPersistentHistoryToken()))
        // A purge cannot pass the indexer while it is behind.
        try context.performAndWait { () throws in
            _ = try context.insert("Photo", ["title": "Later"])
            try context.save()
            let token = try #require(try stack.coordinator.currentPersistentHistoryToken())
            #expect(throws: NimbusError.self) { try context.execute(.deleteHistory(before: token)) }
        }
    }

    @Test("batch requests are indexed by the next run; automatic indexing follows saves")
    func batchesAndAutomatic() throws {
        let stack = try stack()
        let indexer = try SearchIndexer(coordinator: stack.coordinator)
        try indexer.indexPendingChanges()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            try context.execute(BatchInsertRequest(entityName: "Photo", objects: [["title": "Batch one", "caption": "inserted in bulk"]]))
        }
        try indexer.indexPendingChanges()
        #expect(titles(try indexer.search("bulk")) == ["Batch one"])

        indexer.startIndexingAutomatically()
        try context.performAndWait { () throws in
            _ = try context.insert("Photo", ["title": "Saved", "caption": "automatically indexed"])
            try context.save()
        }
        indexer.waitUntilIdle()
        #expect(titles(try indexer.search("automatically")) == ["Saved"])
        indexer.stopIndexingAutomatically()
    }

    @Test("a delegate folds a photo's tags into its entry, and a renamed tag re-indexes its photos")
    func delegateFoldsTags() throws {
        let stack = try stack()
        let indexer = try SearchIndexer(coordinator: stack.coordinator, delegate: PhotoSearch())
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let photo = try context.insert("Photo", ["title": "Taj Mahal", "caption": "marble"])
            let tag = try context.insert("Tag", ["name": "india"])
            photo.setValue(Set([tag]), forKey: "tags")
            try context.save()
            try indexer.indexPendingChanges()
            #expect(titles(try indexer.search("india")) == ["Taj Mahal"])
            tag.setValue("agra", forKey: "name")
            try context.save()
        }
        try indexer.indexPendingChanges()
        #expect(titles(try indexer.search("agra")) == ["Taj Mahal"])
        #expect(try indexer.search("india").isEmpty)
    }

    @Test("a run cut short writes nothing, and the next run resumes from the same transaction")
    func resumesAfterFailure() throws {
        let stack = try stack()
        let delegate = FailingDelegate()
        let indexer = try SearchIndexer(coordinator: stack.coordinator, delegate: delegate, batchSize: 1)
        try indexer.indexPendingChanges()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            _ = try context.insert("Photo", ["title": "First"])
            try context.save()
            _ = try context.insert("Photo", ["title": "Second"])
            try context.save()
        }
        let before = try #require(try stack.coordinator.historyConsumers(ofStore: stack.store)["NimbusSearchIndex"])
        delegate.failing = true
        #expect(throws: NimbusError.self) { try indexer.indexPendingChanges() }
        #expect(try stack.coordinator.historyConsumers(ofStore: stack.store)["NimbusSearchIndex"] == before)
        #expect(try indexer.search("first").isEmpty)
        delegate.failing = false
        // A new indexer (a relaunch) picks up where the index stopped.
        let relaunched = try SearchIndexer(coordinator: stack.coordinator, delegate: delegate, batchSize: 1)
        let update = try relaunched.indexPendingChanges()
        #expect(!update.rebuilt)
        #expect(update.transactions == 2)
        #expect(titles(try relaunched.search("first OR second")).sorted() == ["First", "Second"])
    }

    @Test("a paused indexer does nothing until resumed; rebuild re-indexes everything")
    func pauseAndRebuild() throws {
        let stack = try stack()
        let indexer = try SearchIndexer(coordinator: stack.coordinator)
        try indexer.indexPendingChanges()
        indexer.pause()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            _ = try context.insert("Photo", ["title": "Paused"])
            try context.save()
        }
        #expect(try indexer.indexPendingChanges().paused)
        #expect(try indexer.search("paused").isEmpty)
        indexer.resume()
        #expect(try indexer.indexPendingChanges().indexed == 1)
        try stack.store.database.write { db in try db.execute(sql: "DELETE FROM ANIMBUSSEARCH") }
        #expect(try indexer.search("paused").isEmpty)
        #expect(try indexer.rebuild().indexed == 1)
        #expect(titles(try indexer.search("paused")) == ["Paused"])
    }

    @Test("history purged past the cursor triggers a rebuild instead of missing changes")
    func purgedHistoryRebuilds() throws {
        let stack = try stack()
        let indexer = try SearchIndexer(coordinator: stack.coordinator)
        try indexer.indexPendingChanges()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            _ = try context.insert("Photo", ["title": "Kept"])
            try context.save()
            _ = try context.insert("Photo", ["title": "More"])
            try context.save()
            var purge = PersistentHistoryChangeRequest.deleteHistory(before: try stack.coordinator.currentPersistentHistoryToken())
            purge.ignoresConsumers = true
            try context.execute(purge)
        }
        let update = try indexer.indexPendingChanges()
        #expect(update.rebuilt)
        #expect(titles(try indexer.search("kept OR more")).sorted() == ["Kept", "More"])
    }

    @Test("a store without persistent history cannot be indexed; the error says how to fix it")
    func needsHistory() throws {
        let stack = try TestStack(model: try Self.model())
        let error = try #require(throws: NimbusError.self) { try SearchIndexer(coordinator: stack.coordinator) }
        #expect(error.code == .invalidArgument)
        #expect(error.message.contains("persistentHistoryTracking"))
    }

    @Test("malformed queries are invalidSearchQuery errors pointing at the problem", arguments: [
        ("", 1, "has no words"),
        ("   ", 1, "has no words"),
        ("\"unclosed phrase", 1, "never closed"),
        ("ca*fe", 3, "does not end a word"),
        ("*", 1, "does not end a word"),
        ("cafe OR", 6, "ends with OR"),
        ("OR cafe", 1, "OR without a word before it"),
        ("-decaf", 1, "only excludes words"),
        ("--", 1, "no letters or digits"),
        ("caf\"e", 4, "quote inside a word"),
    ])
    func malformedQueries(text: String, column: Int, message: String) throws {
        let stack = try stack()
        let indexer = try SearchIndexer(coordinator: stack.coordinator)
        let error = try #require(throws: NimbusError.self) { try indexer.search(text) }
        #expect(error.code == .invalidSearchQuery)
        #expect(error.column == column)
        #expect(error.message.contains(message), "\(error.message)")
    }

    @Test("queries become FTS5 expressions of quoted strings, so FTS5 syntax in input is just text")
    func matchExpressions() throws {
        #expect(try SearchQuery("café* -decaf \"crème brûlée\"").matchExpression == #"("café"* AND "crème brûlée") NOT "decaf""#)
        #expect(try SearchQuery("a OR b c").matchExpression == #"("a" OR ("b" AND "c"))"#)
        #expect(try SearchQuery("NEAR(a b) title:x").matchExpression == #"("NEAR(a" AND "b)" AND "title:x")"#)
    }
}
