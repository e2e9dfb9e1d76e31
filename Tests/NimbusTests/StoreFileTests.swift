import Foundation
import GRDB
import Testing
@testable import Nimbus
import NimbusTesting

@Suite("Store file operations")
struct StoreFileTests {
    @Test("migratePersistentStore copies a live WAL store (uncheckpointed writes included) and swaps to it; IDs stay valid")
    func migrate() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        let id = try context.performAndWait { () throws in
            let post = try context.insert("Post", ["title": "in the WAL"])
            try context.save()
            return post.objectID
        }
        #expect(FileManager.default.fileExists(atPath: stack.url.path + "-wal"))
        let target = stack.folder.file("Moved/Posts.sqlite")
        let moved = try stack.coordinator.migratePersistentStore(stack.store, to: target)
        #expect(stack.coordinator.persistentStores.map(\.url) == [target])
        #expect(moved.identifier == stack.store.identifier)
        try context.performAndWait { () throws in
            context.reset()
            #expect(try context.existingObject(with: id).value(forKey: "title") as? String == "in the WAL")
            _ = try context.insert("Post", ["title": "second"])
            try context.save()
        }
        #expect { try stack.coordinator.migratePersistentStore(moved, to: target) } throws: { ($0 as? NimbusError)?.code == .storeNotFound || ($0 as? NimbusError)?.code == .invalidArgument }
        #expect { try stack.coordinator.migratePersistentStore(stack.store, to: stack.folder.file("x.sqlite")) } throws: { ($0 as? NimbusError)?.code == .storeNotFound }
        // The old file is left as it was.
        let old = try TestStack.readTitles(at: stack.url, model: stack.model)
        #expect(old == ["in the WAL"])
    }

    @Test("replacePersistentStore copies another store over an added one, which comes back with the new content")
    func replace() throws {
        let source = try TestStack()
        let sourceContext = source.newContext()
        try sourceContext.performAndWait { () throws in
            let context = sourceContext
            _ = try context.insert("Post", ["title": "from source"])
            try context.save()
        }
        let destination = try TestStack()
        let destinationContext = destination.newContext()
        try destinationContext.performAndWait { () throws in
            let context = destinationContext
            _ = try context.insert("Post", ["title": "old"])
            try context.save()
        }
        try destination.coordinator.replacePersistentStore(at: destination.url, withPersistentStoreFrom: source.url)
        let context = destination.newContext()
        let titles = try context.performAndWait { try context.all("Post").compactMap { $0.value(forKey: "title") as? String } }
        #expect(titles == ["from source"])
        #expect { try destination.coordinator.replacePersistentStore(at: destination.url, withPersistentStoreFrom: source.folder.file("none.sqlite")) } throws: {
            ($0 as? NimbusError)?.code == .storeNotFound
        }
    }

    @Test("destroyPersistentStore empties the file through SQLite, so another open connection sees an empty database, then removes the files")
    func destroy() throws {
        let stack = try TestStack()
        let writer = stack.newContext()
        try writer.performAndWait { () throws in
            let context = writer
            _ = try context.insert("Post", ["title": "x"])
            try context.save()
        }
        let onlooker = try DatabaseQueue(path: stack.url.path)
        try stack.coordinator.destroyPersistentStore(at: stack.url)
        #expect(stack.coordinator.persistentStores.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: stack.url.path))
        #expect(!FileManager.default.fileExists(atPath: stack.url.path + "-wal"))
        #expect(try onlooker.read { try $0.tableExists("ZPOST") } == false)
        try stack.coordinator.destroyPersistentStore(at: stack.url)  // nothing there: no error
        let text = stack.folder.file("notes.txt")
        try Data("not a store".utf8).write(to: text)
        #expect { try stack.coordinator.destroyPersistentStore(at: text) } throws: { ($0 as? NimbusError)?.code == .notADatabase }
        #expect(FileManager.default.fileExists(atPath: text.path))
    }

    @Test("setMetadata keeps the store's own keys and replaces the others; non-plist values are refused")
    func metadata() throws {
        let stack = try TestStack()
        let coordinator = stack.coordinator
        var metadata = try coordinator.metadata(for: stack.store)
        #expect(metadata["NSStoreUUID"] as? String == stack.store.identifier)
        metadata["lastImport"] = "2026-11-23"
        metadata["NSStoreUUID"] = "forged"
        try coordinator.setMetadata(metadata, for: stack.store)
        let read = try PersistentStoreCoordinator.metadataForPersistentStore(at: stack.url)
        #expect(read["lastImport"] as? String == "2026-11-23")
        #expect(read["NSStoreUUID"] as? String == stack.store.identifier)
        #expect { try coordinator.setMetadata(["bad": NSObject()], for: stack.store) } throws: { ($0 as? NimbusError)?.code == .invalidArgument }
        try coordinator.setMetadata([:], for: stack.store)
        #expect(try coordinator.metadata(for: stack.store)["lastImport"] == nil)
        #expect(try coordinator.metadata(for: stack.store)["NSStoreModelVersionHashes"] != nil)
    }
}

extension TestStack {
    static func readTitles(at url: URL, model: ManagedObjectModel) throws -> [String] {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var description = PersistentStoreDescription(url: url)
        description.isReadOnly = true
        try coordinator.addPersistentStore(with: description)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        return try context.performAndWait { try context.all("Post", sortedBy: "title").compactMap { $0.value(forKey: "title") as? String } }
    }
}
