import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// A mapping model builds a new file; what a registered history consumer had not read yet
/// comes with it, naming the new objects, and the consumer reads on from where it was.
@Suite("Mapping-model migrations keep unread history")
struct MappingMigrationHistoryTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Note") {
                AttributeDescription("title", .string)
                AttributeDescription("text", .string)
            }
        }
    }

    @Test("transactions after a consumer's position are carried, before the migration's; read ones are not")
    func unreadHistoryIsCarried() throws {
        let folder = try TemporaryDirectory()
        let model = try Self.model()
        let source = folder.file("Notes.sqlite")
        var description = PersistentStoreDescription(url: source)
        description.persistentHistoryTracking = true
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let store = try coordinator.addPersistentStore(with: description)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        context.transactionAuthor = "app"
        try context.performAndWait { () throws in
            for title in ["a", "b", "gone"] { try context.insert("Note", ["title": title]) }
            try context.save()
        }
        // The consumer has read the inserts; then a note is edited, one deleted, one added.
        let read = try #require(try coordinator.currentPersistentHistoryToken(fromStore: store))
        try coordinator.setHistoryToken(read, forConsumer: "indexer")
        try context.performAndWait { () throws in
            let notes = try context.all("Note")
            try #require(notes.first { $0.value(forKey: "title") as? String == "b" }).setValue("edited", forKey: "text")
            context.delete(try #require(notes.first { $0.value(forKey: "title") as? String == "gone" }))
            try context.save()
            try context.insert("Note", ["title": "c"])
            try context.save()
        }
        try coordinator.removePersistentStore(store)

        let destination = folder.file("Migrated.sqlite")
        let mapping = MappingModel(entityMappings: [EntityMapping(kind: .copy, source: "Note", destination: "Note")])
        try MigrationManager(sourceModel: model, destinationModel: model).migrateStore(from: source, to: destination, mapping: mapping)

        let migrated = PersistentStoreCoordinator(managedObjectModel: model)
        let newStore = try migrated.addPersistentStore(with: PersistentStoreDescription(url: destination))
        let token = try #require(try migrated.historyConsumers(ofStore: newStore)["indexer"])
        let check = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: migrated)
        try check.performAndWait { () throws in
            let transactions = try #require(try check.execute(.fetchHistory(after: token)).transactions)
            #expect(transactions.map(\.author) == ["app", "app", "migration"], "\(transactions.map(\.author))")
            // The edit names the new object of "b", by its property name.
            let edit = try #require(transactions.first?.changes?.first)
            #expect(edit.changeType == .update && edit.updatedProperties == ["text"])
            let edited = try check.existingObject(with: edit.changedObjectID)
            #expect(edited.value(forKey: "title") as? String == "b")
            // The deleted note is no object of the new store: its change is not carried.
            #expect(transactions.first?.changes?.count == 1)
            let insert = try #require(transactions[1].changes?.first)
            #expect(insert.changeType == .insert)
            #expect(try check.existingObject(with: insert.changedObjectID).value(forKey: "title") as? String == "c")
            #expect(transactions[2].changes?.count == 3)
        }
    }
}
