import Foundation
import GRDB
import NimbusTesting
import Testing
@testable import Nimbus

/// Reading an Apple store changes no byte of it and creates nothing beside it, its `-wal`
/// read too (decision 0121); opening it read-write is only done when asked.
@Suite("Apple's stores: read without changing a byte", .enabled(if: AppleStoreFixtures.available))
struct AppleStoreUntouchedTests {
    /// Opens a store read-only with its model and reads every entity; returns the objects read
    /// and the errors met (external values whose files are not there).
    @discardableResult
    static func readEverything(_ url: URL, model: ManagedObjectModel) throws -> (objects: Int, errors: [String]) {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var description = PersistentStoreDescription(url: url)
        description.isReadOnly = true
        let store = try coordinator.addPersistentStore(with: description)
        defer { try? coordinator.removePersistentStore(store) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        return context.performAndWait {
            var result = (objects: 0, errors: [String]())
            for entity in model.entities {
                do {
                    var request = FetchRequest<ManagedObject>(entityName: entity.name)
                    request.includesSubentities = false
                    request.returnsObjectsAsFaults = false
                    result.objects += try context.fetch(request).count
                } catch {
                    result.errors.append("\(entity.name): \(error)")
                }
            }
            return result
        }
    }

    @Test("the store's folder is byte for byte the same after reading every entity", arguments: AppleStoreFixtures.stores)
    func unchanged(store: String) throws {
        let folder = try TemporaryDirectory()
        let url = folder.file(store)
        try FileManager.default.copyItem(at: AppleStoreFixtures.url(store), to: url)
        let before = try AppleStoreFixtures.fingerprint(url)
        let model = try AppleStoreFixtures.model(for: store)
        let read = try Self.readEverything(url, model: model)
        #expect(read.objects > 10)
        // The fixtures come without their _SUPPORT folder: an object naming an external file
        // is an error that names the file; nothing else fails.
        for error in read.errors { #expect(error.contains("_EXTERNAL_DATA"), "\(error)") }
        #expect(try AppleStoreFixtures.fingerprint(url) == before)
    }

    @Test("a store whose model version is not at hand is refused, naming each entity and column that differs, and stays as it was")
    func withoutItsModel() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file(AppleStoreFixtures.withoutModel)
        try FileManager.default.copyItem(at: AppleStoreFixtures.url(AppleStoreFixtures.withoutModel), to: url)
        let before = try AppleStoreFixtures.fingerprint(url)
        let model = try AppleStoreFixtures.model(for: AppleStoreFixtures.withoutModel)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var description = PersistentStoreDescription(url: url)
        description.isReadOnly = true
        let error = try #require(throws: NimbusError.self) { try coordinator.addPersistentStore(with: description) }
        #expect(error.code == .modelMismatch)
        #expect(error.message.contains("UserClient (table ZUSERCLIENT) is missing"), "\(error.message)")
        #expect(error.message.contains("Message.visibleInConversation (table ZMESSAGE) has no column ZVISIBLEINCONVERSATION"), "\(error.message)")
        #expect(error.message.contains("User (table ZUSER) column Z_ENT is entity number 10, the model needs entity number 13"), "\(error.message)")
        #expect(try AppleStoreFixtures.fingerprint(url) == before)
    }

    @Test("read-write when asked, where Apple's names are the model's: a save lands in Apple's tables")
    func readWriteWhenAsked() throws {
        let store = "store2-92-0.sqlite"
        let folder = try TemporaryDirectory()
        let url = folder.file(store)
        try FileManager.default.copyItem(at: AppleStoreFixtures.url(store), to: url)
        let model = try AppleStoreFixtures.model(for: store)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let opened = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        let key = try context.performAndWait { () throws -> Int64 in
            let user = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "User")).first)
            let session = ManagedObject(entity: try model.entity(named: "Session"), insertInto: context)
            session.setValue(user, forKey: "selfUser")
            try context.save()
            return session.objectID.primaryKey
        }
        try coordinator.removePersistentStore(opened)
        let queue = try DatabaseQueue(path: url.path)   // the -wal holds the save
        defer { try? queue.close() }
        let row = try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT Z_ENT, ZSELFUSER, (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Session') AS max FROM ZSESSION WHERE Z_PK = ?", arguments: [key])
        }
        let entity = try #require(row)
        #expect(entity["Z_ENT"] as Int == model.entitiesByName["Session"]!.entityNumber)
        #expect(entity["ZSELFUSER"] as Int64? != nil && (entity["max"] as Int64) >= key)
    }

    @Test("pages waiting in the -wal are read, and the -wal and the folder stay as they were")
    func walRead() throws {
        let store = "store2-100-0.sqlite"
        let model = try AppleStoreFixtures.model(for: store)
        let work = try TemporaryDirectory(), copy = try TemporaryDirectory()
        let url = work.file(store)
        try FileManager.default.copyItem(at: AppleStoreFixtures.url(store), to: url)
        // A writer commits into the -wal and stays open (no checkpoint): copy the file and its
        // -wal as a backup taken from a running app would be.
        let writer = try DatabaseQueue(path: url.path)
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "UPDATE ZUSER SET ZNAME = 'written in the wal' WHERE Z_PK = (SELECT min(Z_PK) FROM ZUSER)")
        }
        let target = copy.file(store)
        try FileManager.default.copyItem(atPath: url.path, toPath: target.path)
        try FileManager.default.copyItem(atPath: url.path + "-wal", toPath: target.path + "-wal")
        try writer.close()
        #expect((UntouchedOpening.size(target.path + "-wal") ?? 0) > 0)
        let before = try AppleStoreFixtures.fingerprint(target)

        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var description = PersistentStoreDescription(url: target)
        description.isReadOnly = true
        let opened = try coordinator.addPersistentStore(with: description)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        let names = try context.performAndWait {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "User")).compactMap { $0.value(forKey: "name") as? String }
        }
        #expect(names.contains("written in the wal"))
        try coordinator.removePersistentStore(opened)
        #expect(try AppleStoreFixtures.fingerprint(target) == before)
    }

    @Test("without the model, or read-write when Apple named a table otherwise, the error says what to do and nothing changes")
    func refusals() throws {
        let folder = try TemporaryDirectory()
        let store = "store2-100-0.sqlite"   // Apple named the join table Z_25TRUSTEDBYCLIENTS here
        let url = folder.file(store)
        try FileManager.default.copyItem(at: AppleStoreFixtures.url(store), to: url)
        let before = try AppleStoreFixtures.fingerprint(url)
        let noModel = try #require(throws: NimbusError.self) { try ManagedObjectModel.storedModel(at: url) }
        #expect(noModel.code == .modelMismatch)
        let model = try AppleStoreFixtures.model(for: store)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let readWrite = try #require(throws: NimbusError.self) { try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url)) }
        #expect(readWrite.code == .modelMismatch)
        #expect(readWrite.message.contains("read-only") && readWrite.message.contains("import-coredata"), "\(readWrite.message)")
        // Another model version: the error names what differs.
        let other = try ManagedObjectModel(contentsOf: AppleStoreFixtures.directory!.appendingPathComponent("zmessaging.xcdatamodeld/zmessaging2.3.xcdatamodel"))
        var description = PersistentStoreDescription(url: url)
        description.isReadOnly = true
        let mismatch = try #require(throws: NimbusError.self) { try PersistentStoreCoordinator(managedObjectModel: other).addPersistentStore(with: description) }
        #expect(mismatch.code == .modelMismatch)
        #expect(mismatch.message.contains("Z_ENT") || mismatch.message.contains("has no column"), "\(mismatch.message)")
        #expect(try AppleStoreFixtures.fingerprint(url) == before)
    }
}
