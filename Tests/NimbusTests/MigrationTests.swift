import Crypto
import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

@Suite("Lightweight migration")
struct MigrationTests {
    static func version1() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Author") {
                AttributeDescription("name", .string)
                AttributeDescription("nickname", .string)
                RelationshipDescription("books", to: "Book", inverse: "author", toMany: true)
            }
            EntityDescription("Book") {
                AttributeDescription("title", .string)
                RelationshipDescription("author", to: "Author", inverse: "books")
                RelationshipDescription("genres", to: "Genre", inverse: "books", toMany: true)
            }
            EntityDescription("Genre") {
                AttributeDescription("label", .string)
                RelationshipDescription("books", to: "Book", inverse: "genres", toMany: true)
            }
            EntityDescription("Scratch") { AttributeDescription("note", .string) }
        }
    }

    /// Renames Book.title to heading, drops Author.nickname and the Scratch entity, adds
    /// Book.pages (with a default) and a Review entity (sorting before the others, so
    /// entity numbers shift).
    static func version2() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Author") {
                AttributeDescription("name", .string)
                RelationshipDescription("books", to: "Book", inverse: "author", toMany: true)
            }
            EntityDescription("Book") {
                AttributeDescription("heading", .string, renamingIdentifier: "title")
                AttributeDescription("pages", .integer32, isOptional: false, defaultValue: 100)
                RelationshipDescription("author", to: "Author", inverse: "books")
                RelationshipDescription("genres", to: "Genre", inverse: "books", toMany: true)
            }
            EntityDescription("Genre") {
                AttributeDescription("label", .string)
                RelationshipDescription("books", to: "Book", inverse: "genres", toMany: true)
            }
            EntityDescription("AReview") { AttributeDescription("stars", .integer16) }
        }
    }

    private func description(_ url: URL) -> PersistentStoreDescription {
        var description = PersistentStoreDescription(url: url)
        description.persistentHistoryTracking = true
        return description
    }

    private func seed(_ url: URL) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.version1())
        try coordinator.addPersistentStore(with: description(url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            context.transactionAuthor = "seed"
            let author = try context.insert("Author", ["name": "Ursula", "nickname": "U"])
            let book = try context.insert("Book", ["title": "The Dispossessed", "author": author])
            let genre = try context.insert("Genre", ["label": "SF"])
            try book.addObjects([genre], toRelationship: "genres")
            try context.save()
            book.setValue("The Dispossessed (1974)", forKey: "title")
            try context.save()
        }
    }

    @Test("data, keys, relationships and history survive an inferred migration")
    func migrates() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Library.sqlite")
        try seed(url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.version2())
        let store = try coordinator.addPersistentStore(with: description(url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            let book = try #require(try context.all("Book").first)
            #expect(book.value(forKey: "heading") as? String == "The Dispossessed (1974)")
            #expect(book.value(forKey: "pages") as? Int32 == 100)
            #expect(book.objectID.primaryKey == 1)
            let author = try #require(book.value(forKey: "author") as? ManagedObject)
            #expect(author.value(forKey: "name") as? String == "Ursula")
            #expect((book.value(forKey: "genres") as? Set<ManagedObject>)?.first?.value(forKey: "label") as? String == "SF")
            _ = try context.insert("AReview", ["stars": 5])
            let another = try context.insert("Book", ["heading": "Lathe", "author": author])
            try context.save()
            #expect(another.objectID.primaryKey == 2)

            let history = try context.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
            #expect(history.map(\.author) == ["seed", "seed", nil])
            let update = try #require(history[1].changes?.first)
            #expect(update.changedObjectID.entity.name == "Book")
            #expect(update.updatedProperties == ["heading"])
            #expect(Set(history[0].changes!.map(\.changedObjectID.entity.name)) == ["Author", "Book", "Genre"])
        }
        #expect(store.metadata["NSPersistentHistoryTrackingKey"] as? Bool == true)
        // The migrated store opens again without migrating: the file is left byte for byte
        // as it was, and it holds what was saved after the migration.
        try coordinator.removePersistentStore(store)
        let migrated = Data(SHA256.hash(data: try Data(contentsOf: url)))
        let again = PersistentStoreCoordinator(managedObjectModel: try Self.version2())
        let reopened = try again.addPersistentStore(with: description(url))
        #expect(reopened.metadata["NSStoreModelVersionHashes"] as? [String: Data] == (try Self.version2()).entityVersionHashesByName)
        let check = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: again)
        try check.performAndWait { () throws in
            #expect(try check.all("Book", sortedBy: "heading").map { $0.value(forKey: "heading") as? String } == ["Lathe", "The Dispossessed (1974)"])
            #expect(try check.all("AReview").count == 1)
        }
        try again.removePersistentStore(reopened)
        #expect(Data(SHA256.hash(data: try Data(contentsOf: url))) == migrated, "opening the migrated store changed the file")
    }

    @Test("history of a removed entity leaves a gap: history is kept up to the last complete transaction")
    func historyGap() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Library.sqlite")
        try seed(url)
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.version1())
            try coordinator.addPersistentStore(with: description(url))
            let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
            try context.performAndWait { () throws in
                _ = try context.insert("Scratch", ["note": "gone soon"])
                _ = try context.insert("Genre", ["label": "Fantasy"])
                try context.save()
                _ = try context.insert("Genre", ["label": "Poetry"])
                try context.save()
            }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.version2())
        try coordinator.addPersistentStore(with: description(url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            let history = try context.execute(.fetchHistory(after: nil as PersistentHistoryToken?)).transactions
            #expect(history.map(\.transactionNumber) == [1, 2], "transaction 3 lost its Scratch change, so 3 and later are dropped")
            #expect(try context.all("Genre").count == 3, "the data itself is all there")
        }
    }

    @Test("a change that cannot be inferred is refused and the store is left as it was")
    func notInferable() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Library.sqlite")
        try seed(url)
        let before = Data(SHA256.hash(data: try Data(contentsOf: url)))
        let changed = try ManagedObjectModel {
            EntityDescription("Author") { AttributeDescription("name", .integer64) }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: changed)
        #expect { try coordinator.addPersistentStore(with: description(url)) } throws: { error in
            guard let error = error as? NimbusError, error.code == .modelMismatch else { return false }
            return error.message.contains("changed type from string to integer64")
        }
        #expect(Data(SHA256.hash(data: try Data(contentsOf: url))) == before)
        var manual = description(url)
        manual.shouldMigrateStoreAutomatically = false
        #expect { try PersistentStoreCoordinator(managedObjectModel: try Self.version2()).addPersistentStore(with: manual) } throws: {
            ($0 as? NimbusError)?.code == .modelMismatch
        }
    }
}
