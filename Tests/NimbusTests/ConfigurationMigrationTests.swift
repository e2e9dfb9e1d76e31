import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// Stores bound to a configuration (the README's Cloud + Local setup) migrate the entities of
/// their configuration, by every path: opening with a new model, a staged plan, a mapping
/// model; and tools that don't name the configuration open them as that configuration's store.
@Suite("Migration of stores bound to a configuration")
struct ConfigurationMigrationTests {
    /// Cloud holds posts; Local holds drafts, which no Cloud store has a table for.
    static func model(version: Int) throws -> ManagedObjectModel {
        try ManagedObjectModel(configurations: ["Cloud": ["Post"], "Local": ["Draft"]]) {
            EntityDescription("Post") {
                AttributeDescription("title", .string)
                if version >= 2 { AttributeDescription("subtitle", .string) }
            }
            EntityDescription("Draft") {
                AttributeDescription("text", .string)
                if version >= 2 { AttributeDescription("words", .integer64, defaultValue: 0) }
            }
        }
    }

    /// Writes a Cloud and a Local store with model v1: posts "a", "b"; draft "d".
    static func seed(_ folder: TemporaryDirectory) throws {
        let v1 = try model(version: 1)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: v1)
        let stores = try ["Cloud", "Local"].map { name in
            var description = PersistentStoreDescription(url: folder.file("\(name).sqlite"))
            description.configuration = name
            return try coordinator.addPersistentStore(with: description)
        }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            try context.insert("Post", ["title": "a"])
            try context.insert("Post", ["title": "b"])
            try context.insert("Draft", ["text": "d"])
            try context.save()
        }
        for store in stores { try coordinator.removePersistentStore(store) }
    }

    static func titles(_ context: ManagedObjectContext, _ entity: String, _ key: String) throws -> [String] {
        try context.performAndWait { try context.all(entity).compactMap { $0.value(forKey: key) as? String }.sorted() }
    }

    @Test("A new model version opens stores bound to a configuration, each migrating its own entities")
    func openWithNewVersion() throws {
        let folder = try TemporaryDirectory()
        try Self.seed(folder)
        let v2 = try Self.model(version: 2)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: v2)
        for name in ["Cloud", "Local"] {
            var description = PersistentStoreDescription(url: folder.file("\(name).sqlite"))
            description.configuration = name
            try coordinator.addPersistentStore(with: description)
        }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        #expect(try Self.titles(context, "Post", "title") == ["a", "b"])
        #expect(try Self.titles(context, "Draft", "text") == ["d"])
        try context.performAndWait { () throws in
            let draft = try #require(try context.all("Draft").first)
            #expect(draft.value(forKey: "words") as? Int64 == 0)
            try context.insert("Post", ["title": "c", "subtitle": "new"])
            try context.save()
        }
        #expect(try Self.titles(context, "Post", "subtitle") == ["new"])
    }

    @Test("A store opened without naming its configuration is that configuration's store")
    func openWithoutConfiguration() throws {
        let folder = try TemporaryDirectory()
        try Self.seed(folder)
        // As a tool would: the store's own model, no configuration.
        let stored = try ManagedObjectModel.storedModel(at: folder.file("Cloud.sqlite"))
        let coordinator = PersistentStoreCoordinator(managedObjectModel: stored)
        let store = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: folder.file("Cloud.sqlite")))
        #expect(store.configurationName == "Cloud")
        #expect(store.entities.map(\.name) == ["Post"])
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        #expect(try Self.titles(context, "Post", "title") == ["a", "b"])

        // And with the new model, which migrates it.
        try coordinator.removePersistentStore(store)
        let v2 = PersistentStoreCoordinator(managedObjectModel: try Self.model(version: 2))
        let migrated = try v2.addPersistentStore(with: PersistentStoreDescription(url: folder.file("Local.sqlite")))
        #expect(migrated.configurationName == "Local")
        #expect(try Self.titles(ManagedObjectContext(concurrencyType: .privateQueue, coordinator: v2), "Draft", "text") == ["d"])
    }

    @Test("A staged plan migrates a store bound to a configuration")
    func stagedPlan() throws {
        let folder = try TemporaryDirectory()
        try Self.seed(folder)
        let plan = try StagedMigrationPlan([.lightweight(from: try Self.model(version: 1), to: try Self.model(version: 2))])
        let url = folder.file("Cloud.sqlite")
        #expect(try plan.stages(forStoreAt: url).count == 1)
        let previews = try plan.preview(storeAt: url)
        #expect(previews.first?.entities.contains { $0.destination == "Post" } == true)
        #expect(try plan.migrateStore(at: url).count == 1)
        #expect(try plan.stages(forStoreAt: url).isEmpty)
        let metadata = try PersistentStoreCoordinator.metadataForPersistentStore(at: url)
        #expect((metadata["NSStoreModelVersionHashes"] as? [String: Data])?.keys.sorted() == ["Post"])
    }

    @Test("A mapping model migrates a store bound to a configuration into the same configuration")
    func mappingModel() throws {
        let folder = try TemporaryDirectory()
        try Self.seed(folder)
        let v1 = try Self.model(version: 1), v2 = try Self.model(version: 2)
        let mapping = MappingModel(entityMappings: [
            EntityMapping(kind: .transform, source: "Post", destination: "Post", attributeMappings: [
                PropertyMapping("title", .keyPath(variable: "source", ["title"])),
                PropertyMapping("subtitle", .function(receiver: .keyPath(variable: "source", ["title"]), selector: "uppercaseString", arguments: [])),
            ]),
        ])
        let destination = folder.file("Cloud2.sqlite")
        try MigrationManager(sourceModel: v1, destinationModel: v2).migrateStore(from: folder.file("Cloud.sqlite"), to: destination, mapping: mapping)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: v2)
        let store = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: destination))
        #expect(store.configurationName == "Cloud")
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        #expect(try Self.titles(context, "Post", "subtitle") == ["A", "B"])
    }
}
