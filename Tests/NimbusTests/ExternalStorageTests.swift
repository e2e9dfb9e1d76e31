import Foundation
import GRDB
import Testing
@testable import Nimbus
import NimbusTesting

/// Binary values of attributes that allow external storage, laid out as Core Data does.
@Suite("External binary storage")
struct ExternalStorageTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Photo") {
                AttributeDescription("name", .string)
                AttributeDescription("image", .binaryData, allowsExternalBinaryDataStorage: true)
                AttributeDescription("raw", .binaryData)
            }
        }
    }

    static let large = Data((0..<300_000).map { UInt8($0 % 253) })
    static let small = Data([1, 2, 3])

    struct Store {
        let folder: TemporaryDirectory
        let coordinator: PersistentStoreCoordinator
        let context: ManagedObjectContext
        var url: URL { folder.file("Photos.sqlite") }
        var files: [String] {
            (try? FileManager.default.contentsOfDirectory(atPath: folder.file(".Photos_SUPPORT/_EXTERNAL_DATA").path))?.sorted() ?? []
        }

        init() throws {
            folder = try TemporaryDirectory()
            coordinator = PersistentStoreCoordinator(managedObjectModel: try ExternalStorageTests.model())
            try coordinator.addPersistentStore(with: PersistentStoreDescription(url: folder.file("Photos.sqlite")))
            context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        }

        /// The stored column of the photo named `name`.
        func column(_ name: String) throws -> Data? {
            let queue = try DatabaseQueue(path: url.path)
            defer { try? queue.close() }
            return try queue.read { db in try Data.fetchOne(db, sql: "SELECT ZIMAGE FROM ZPHOTO WHERE ZNAME = ?", arguments: [name]) }
        }
    }

    @Test("a value over the threshold goes to a file named from the row; a small one stays in the row; both read back")
    func layout() throws {
        let store = try Store()
        try store.context.performAndWait { () throws in
            _ = try store.context.insert("Photo", ["name": "big", "image": Self.large, "raw": Self.large])
            _ = try store.context.insert("Photo", ["name": "small", "image": Self.small])
            try store.context.save()
        }
        #expect(store.files.count == 1)
        let big = try #require(try store.column("big"))
        #expect(big.first == 0x02)
        #expect(ExternalStorage.fileName(in: big) == store.files.first)
        #expect(try store.column("small") == Data([0x01, 1, 2, 3]))
        #expect(try Data(contentsOf: store.folder.file(".Photos_SUPPORT/_EXTERNAL_DATA/\(store.files[0])")) == Self.large)
        let reopened = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        try reopened.addPersistentStore(with: PersistentStoreDescription(url: store.url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: reopened)
        try context.performAndWait { () throws in
            let photos = try context.all("Photo", sortedBy: "name")
            #expect(photos.map { $0.value(forKey: "image") as? Data } == [Self.large, Self.small])
            #expect(photos[0].value(forKey: "raw") as? Data == Self.large, "an attribute without external storage stays inline")
            var dictionaries = FetchRequest<[String: Any]>(entityName: "Photo")
            dictionaries.propertiesToFetch = ["name", "image"]
            dictionaries.sortDescriptors = [FetchSortDescriptor("name")]
            #expect(try context.fetch(dictionaries).map { $0["image"] as? Data } == [Self.large, Self.small], "dictionary fetches read files too")
            var update = BatchUpdateRequest(entityName: "Photo")
            update.propertiesToUpdate = ["image": Self.small]
            let refused = try #require(throws: NimbusError.self) { try context.execute(update) }
            #expect(refused.code == .unsupported && refused.message.contains("Photo.image, which allows external storage"), "\(refused.message)")
        }
    }

    @Test("replacing or deleting a value removes its file after the save; a batch delete does too")
    func cleanup() throws {
        let store = try Store()
        try store.context.performAndWait { () throws in
            let photo = try store.context.insert("Photo", ["name": "a", "image": Self.large])
            try store.context.save()
            let first = store.files
            photo.setValue(Data(Self.large.reversed()), forKey: "image")
            try store.context.save()
            #expect(store.files.count == 1 && store.files != first, "the old file went, the new one came")
            photo.setValue(Self.small, forKey: "image")
            try store.context.save()
            #expect(store.files.isEmpty)
            photo.setValue(Self.large, forKey: "image")
            try store.context.save()
            #expect(store.files.count == 1)
            store.context.delete(photo)
            try store.context.save()
            #expect(store.files.isEmpty)
            for name in ["x", "y"] { _ = try store.context.insert("Photo", ["name": name, "image": Self.large]) }
            try store.context.save()
            #expect(store.files.count == 2)
            var request = FetchRequest<ManagedObject>(entityName: "Photo")
            request.predicate = try QueryPredicate(format: "name == 'x'")
            _ = try store.context.execute(BatchDeleteRequest(fetchRequest: request))
            #expect(store.files.count == 1)
        }
    }

    @Test("a failed save leaves no file behind and removes none; a missing file reads as corruptStore naming it")
    func failures() throws {
        let store = try Store()
        try store.context.performAndWait { () throws in
            _ = try store.context.insert("Photo", ["name": "kept", "image": Self.large])
            try store.context.save()
        }
        let kept = store.files
        // Another coordinator changes the row first: this save conflicts and is rolled back.
        let other = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        try other.addPersistentStore(with: PersistentStoreDescription(url: store.url))
        let otherContext = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: other)
        try store.context.performAndWait { () throws in
            let photo = try #require(try store.context.all("Photo").first)
            _ = photo.value(forKey: "image")
            try otherContext.performAndWait { () throws in
                try #require(try otherContext.all("Photo").first).setValue("renamed", forKey: "name")
                try otherContext.save()
            }
            photo.setValue(Data(Self.large.reversed()), forKey: "image")
            #expect(throws: NimbusError.self) { try store.context.save() }
        }
        #expect(store.files == kept, "the conflicting save's new file was removed and the row's file kept")
        try FileManager.default.removeItem(at: store.folder.file(".Photos_SUPPORT/_EXTERNAL_DATA/\(kept[0])"))
        let reader = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        try reader.addPersistentStore(with: PersistentStoreDescription(url: store.url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: reader)
        try context.performAndWait { () throws in
            let error = try #require(throws: NimbusError.self) { _ = try context.fetch(FetchRequest<ManagedObject>(entityName: "Photo")) }
            #expect(error.code == .corruptStore)
            #expect(error.message.contains("Photo.image of the row Z_PK = 1 names the external data file"), "\(error.message)")
            #expect(error.message.contains(kept[0]))
        }
    }

    @Test("turning external storage on in a lightweight migration marks the stored values; off is refused while files exist")
    func migration() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Photos.sqlite")
        let inline = try ManagedObjectModel {
            EntityDescription("Photo") {
                AttributeDescription("name", .string)
                AttributeDescription("image", .binaryData)
            }
        }
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: inline)
            try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
            let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
            try context.performAndWait { () throws in
                _ = try context.insert("Photo", ["name": "a", "image": Self.large])
                try context.save()
            }
        }
        let external = try ManagedObjectModel {
            EntityDescription("Photo") {
                AttributeDescription("name", .string)
                AttributeDescription("image", .binaryData, allowsExternalBinaryDataStorage: true)
            }
        }
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: external)
            try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
            let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
            try context.performAndWait { () throws in
                let photo = try #require(try context.all("Photo").first)
                #expect(photo.value(forKey: "image") as? Data == Self.large)
                _ = try context.insert("Photo", ["name": "b", "image": Self.large])
                try context.save()
            }
        }
        let error = try #require(throws: NimbusError.self) {
            try PersistentStoreCoordinator(managedObjectModel: inline).addPersistentStore(with: PersistentStoreDescription(url: url))
        }
        #expect(error.code == .modelMismatch)
        #expect(error.message.contains("Photo.image no longer allows external storage, but 1 value(s) are in external files"), "\(error.message)")
    }
}
