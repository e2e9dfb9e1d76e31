import Crypto
import Foundation
import GRDB
import Testing
@testable import Nimbus
import NimbusTesting

@Suite("Opening stores")
struct StoreOpeningTests {
    private func digest(_ url: URL) throws -> Data {
        Data(SHA256.hash(data: try Data(contentsOf: url)))
    }

    private func open(_ url: URL, model: ManagedObjectModel? = nil) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try model ?? PostsModel.make())
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
    }

    @Test("a file that is not a database is refused and left as it was")
    func notADatabase() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("notes.sqlite")
        try Data(String(repeating: "not a database, just text\n", count: 200).utf8).write(to: url)
        let before = try digest(url)
        #expect { try open(url) } throws: { ($0 as? NimbusError)?.code == .notADatabase }
        #expect(try digest(url) == before)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
    }

    @Test("a corrupt database is refused and left as it was")
    func corrupt() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for i in 0..<200 { _ = try context.insert("Post", ["title": String(repeating: "x", count: 100) + "\(i)"]) }
            try context.save()
        }
        try stack.coordinator.removePersistentStore(stack.store)
        let copy = stack.folder.file("corrupt.sqlite")
        var bytes = try Data(contentsOf: stack.url)
        // Keep the header, scramble the schema page.
        for i in 100..<min(4096, bytes.count) { bytes[i] = UInt8(truncatingIfNeeded: i * 31) }
        try bytes.write(to: copy)
        let before = try digest(copy)
        #expect { try open(copy) } throws: { error in
            let code = (error as? NimbusError)?.code
            return code == .corruptStore || code == .notADatabase
        }
        #expect(try digest(copy) == before)
    }

    @Test("a SQLite database that is not a store is refused and left as it was")
    func foreignDatabase() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("app.sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in try db.execute(sql: "CREATE TABLE things (id INTEGER PRIMARY KEY)") }
        try queue.close()
        let before = try digest(url)
        #expect { try open(url) } throws: { ($0 as? NimbusError)?.code == .corruptStore }
        #expect(try digest(url) == before)
    }

    @Test("a store written with another model is refused with the differences named")
    func modelMismatch() throws {
        let stack = try TestStack()
        try stack.coordinator.removePersistentStore(stack.store)
        let before = try digest(stack.url)
        let other = try ManagedObjectModel {
            EntityDescription("Post") { AttributeDescription("title", .integer64) }
        }
        #expect { try open(stack.url, model: other) } throws: { error in
            guard let error = error as? NimbusError, error.code == .modelMismatch else { return false }
            return error.message.contains("Post changed") && error.message.contains("Person is in the store but not in the model")
        }
        #expect(try digest(stack.url) == before)
    }

    @Test("a store opens without its model, from the model it keeps")
    func openWithoutModel() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            _ = try context.insert("Tag", ["name": "kept"])
            try context.save()
        }
        let description = PersistentStoreDescription(url: stack.url)
        let database = try SQLiteDatabase.open(description, model: nil)
        #expect(database.model.versionHash == stack.model.versionHash)
        #expect(database.identifier == stack.store.identifier)
    }

    @Test("read-only stores refuse saves; the same URL cannot be added twice")
    func readOnly() throws {
        let stack = try TestStack()
        #expect { try stack.coordinator.addPersistentStore(with: PersistentStoreDescription(url: stack.url)) } throws: {
            ($0 as? NimbusError)?.code == .storeAlreadyAdded
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: stack.model)
        var description = PersistentStoreDescription(url: stack.url)
        description.isReadOnly = true
        try coordinator.addPersistentStore(with: description)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            _ = try context.insert("Tag", ["name": "x"])
            #expect { try context.save() } throws: { ($0 as? NimbusError)?.code == .readOnlyStore }
        }
    }

    @Test("journal mode DELETE and a pool of one connection work like WAL")
    func options() throws {
        let folder = try TemporaryDirectory()
        let model = try PostsModel.make()
        var description = PersistentStoreDescription(url: folder.file("d.sqlite"))
        description.journalMode = .delete
        description.maximumConnectionPoolSize = 1
        description.timeout = 1
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(with: description)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            _ = try context.insert("Tag", ["name": "x"])
            try context.save()
            #expect(try context.all("Tag").count == 1)
        }
        let mode = try DatabaseQueue(path: folder.file("d.sqlite").path).read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "delete")
    }

    @Test("an in-memory store behaves like a SQLite file")
    func inMemory() throws {
        let stack = try TestStack(type: .inMemory)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let post = try context.insert("Post", ["title": "m"])
            let tag = try context.insert("Tag", ["name": "t"])
            try post.addObjects([tag], toRelationship: "tags")
            try context.save()
            context.reset()
            let fetched = try context.all("Post")
            #expect((fetched.first?.value(forKey: "tags") as? Set<ManagedObject>)?.count == 1)
            #expect(stack.store.type == .inMemory)
        }
    }
}
