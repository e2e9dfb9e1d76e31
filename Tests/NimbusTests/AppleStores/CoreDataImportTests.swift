import Foundation
import GRDB
import NimbusTesting
import Testing
@testable import Nimbus

/// `CoreDataImport`: an Apple store copied into a Nimbus store reads back object for object,
/// and the copy is an ordinary Nimbus store (it opens without the source, and saves).
@Suite("Apple's stores: import into a Nimbus store", .enabled(if: AppleStoreFixtures.available))
struct CoreDataImportTests {
    /// Every object's stored values, by entity and key, objects as "Entity/key".
    static func snapshot(_ url: URL, model: ManagedObjectModel, readOnly: Bool) throws -> [String: [String: String]] {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var description = PersistentStoreDescription(url: url)
        description.isReadOnly = readOnly
        let store = try coordinator.addPersistentStore(with: description)
        defer { try? coordinator.removePersistentStore(store) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        return try context.performAndWait {
            var result: [String: [String: String]] = [:]
            for entity in model.entities {
                var request = FetchRequest<ManagedObject>(entityName: entity.name)
                request.includesSubentities = false
                for object in try context.fetch(request) {
                    var values: [String: String] = [:]
                    for property in entity.properties where !property.isTransient {
                        if property.relationship?.isToMany == true {
                            let ids = try object.objectIDs(forRelationshipNamed: property.name).map { "\($0.entity.name)/\($0.primaryKey)" }
                            values[property.name] = (property.relationship!.isOrdered ? ids : ids.sorted()).joined(separator: ",")
                        } else if case let .object(id)? = object.primitiveValue(forKey: property.name) {
                            values[property.name] = "\(id.entity.name)/\(id.primaryKey)"
                        } else if case let .data(bytes)? = object.primitiveValue(forKey: property.name) {
                            values[property.name] = bytes.base64EncodedString()
                        } else {
                            values[property.name] = "\(object.primitiveValue(forKey: property.name) ?? .null)"
                        }
                    }
                    result["\(entity.name)/\(object.objectID.primaryKey)"] = values
                }
            }
            return result
        }
    }

    @Test("every object reads the same from the Nimbus copy as from Apple's store", arguments: AppleStoreFixtures.stores)
    func roundTrip(store: String) throws {
        let model = try AppleStoreFixtures.model(for: store)
        let folder = try TemporaryDirectory()
        let (source, files) = try AppleStoreReadingTests.copyWithExternalFiles(store, model: model, into: folder)
        let before = try AppleStoreFixtures.fingerprint(source)
        let elsewhere = try TemporaryDirectory()
        let destination = elsewhere.file("imported.sqlite")
        var progress: [CoreDataImport.Progress] = []
        let summary = try CoreDataImport.run(from: source, model: model, to: destination) { progress.append($0) }
        #expect(try AppleStoreFixtures.fingerprint(source) == before)
        #expect(progress.last?.tablesCopied == progress.last?.tableCount && progress.count == model.schema.tables.count + model.schema.joinTables.count)
        #expect(summary.externalFiles == files)
        let framework = try AppleStoreFixtures.metadata(store)["NSPersistenceFrameworkVersion"]!
        #expect(summary.frameworkVersion == "\(framework)")

        let apple = try Self.snapshot(source, model: model, readOnly: true)
        let copy = try Self.snapshot(destination, model: model, readOnly: false)
        #expect(apple.count > 10 && apple.count == summary.objectsByEntity.values.reduce(0, +))
        #expect(copy.keys.sorted() == apple.keys.sorted())
        let differing = apple.keys.sorted().filter { apple[$0] != copy[$0] }
        #expect(differing.isEmpty, "\(differing.prefix(5).map { "\($0): \(apple[$0]!) vs \(copy[$0] ?? [:])" })")

        // The copy is Nimbus's: it opens with the model alone, and a new object gets a new key.
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: destination))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait {
            let before = try context.fetch(FetchRequest<ManagedObject>(entityName: "Session")).map(\.objectID.primaryKey)
            let session = ManagedObject(entity: try model.entity(named: "Session"), insertInto: context)
            try context.save()
            let after = try context.fetch(FetchRequest<ManagedObject>(entityName: "Session")).map(\.objectID.primaryKey)
            #expect(!before.isEmpty && after.count == before.count + 1 && session.objectID.primaryKey > before.max()!)
        }
    }

    @Test("an imported store moves to the app's next model versions with an inferred migration, every object kept", arguments: [
        ("store2-86-0.sqlite", "2.92.0"), ("store2-39-0.sqlite", "2.66.0"), ("store2-92-0.sqlite", "2.101.0"),
    ])
    func migrateAfterImport(store: String, version: String) throws {
        let model = try AppleStoreFixtures.model(for: store)
        let folder = try TemporaryDirectory()
        let (source, _) = try AppleStoreReadingTests.copyWithExternalFiles(store, model: model, into: folder)
        let destination = folder.file("imported.sqlite")
        let summary = try CoreDataImport.run(from: source, model: model, to: destination)
        let next = try ManagedObjectModel(contentsOf: AppleStoreFixtures.directory!.appendingPathComponent("zmessaging.xcdatamodeld/zmessaging\(version).xcdatamodel"))
        let coordinator = PersistentStoreCoordinator(managedObjectModel: next)
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: destination))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        let counts = try context.performAndWait { () throws -> [String: Int] in
            var counts: [String: Int] = [:]
            for name in summary.objectsByEntity.keys where next.entitiesByName[name] != nil {
                var request = FetchRequest<ManagedObject>(entityName: name)
                request.includesSubentities = false
                counts[name] = try context.count(for: request)
            }
            return counts
        }
        #expect(!counts.isEmpty && counts == summary.objectsByEntity.filter { next.entitiesByName[$0.key] != nil })
    }

    @Test("an existing destination or another model version is refused, and nothing is written")
    func refusals() throws {
        let folder = try TemporaryDirectory()
        let source = AppleStoreFixtures.url("store2-92-0.sqlite")
        let existing = folder.file("there.sqlite")
        try Data("keep".utf8).write(to: existing)
        let model = try AppleStoreFixtures.model(for: "store2-92-0.sqlite")
        let exists = try #require(throws: NimbusError.self) { try CoreDataImport.run(from: source, model: model, to: existing) }
        #expect(exists.code == .storeAlreadyAdded)
        #expect(try Data(contentsOf: existing) == Data("keep".utf8))
        let other = try AppleStoreFixtures.model(for: "store2-3.sqlite")
        let destination = folder.file("new.sqlite")
        let mismatch = try #require(throws: NimbusError.self) { try CoreDataImport.run(from: source, model: other, to: destination) }
        #expect(mismatch.code == .modelMismatch)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }
}
