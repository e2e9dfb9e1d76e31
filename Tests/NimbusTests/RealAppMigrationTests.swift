import Crypto
import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// What real apps' migration chains need: required attributes added over empty entities,
/// packages with an unreadable old version, and dry runs that give the real run's answer.
@Suite("Real apps' migrations")
struct RealAppMigrationTests {
    /// Items and notes; with `rank`, Item gains a required Integer 32 without a default.
    static func items(rank: Bool) throws -> ManagedObjectModel {
        guard rank else {
            return try ManagedObjectModel {
                EntityDescription("Item") { AttributeDescription("name", .string) }
                EntityDescription("Note") { AttributeDescription("text", .string) }
            }
        }
        return try ManagedObjectModel {
            EntityDescription("Item") {
                AttributeDescription("name", .string)
                AttributeDescription("rank", .integer32, isOptional: false)
            }
            EntityDescription("Note") { AttributeDescription("text", .string) }
        }
    }

    static func seed(_ url: URL, items count: Int) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try items(rank: false))
        let store = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            for i in 0..<count { _ = try context.insert("Item", ["name": "item \(i)"]) }
            _ = try context.insert("Note", ["text": "kept"])
            try context.save()
        }
        try coordinator.removePersistentStore(store)
    }

    @Test("a required attribute added without a default migrates an entity without rows; with rows it fails naming the entity and count, cause first")
    func requiredWithoutDefault() throws {
        let folder = try TemporaryDirectory()
        let empty = folder.file("Empty.sqlite")
        try Self.seed(empty, items: 0)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.items(rank: true))
        let store = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: empty))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            #expect(try context.all("Note").map { $0.value(forKey: "text") as? String } == ["kept"])
        }
        try coordinator.removePersistentStore(store)

        let full = folder.file("Full.sqlite")
        try Self.seed(full, items: 2)
        let before = Data(SHA256.hash(data: try Data(contentsOf: full)))
        let error = try #require(throws: NimbusError.self) {
            try PersistentStoreCoordinator(managedObjectModel: try Self.items(rank: true)).addPersistentStore(with: PersistentStoreDescription(url: full))
        }
        #expect(error.code == .modelMismatch)
        #expect(error.message.hasPrefix("Item.rank is new and required and has no default value, and the store holds 2 Item object(s) to fill"), "\(error.message)")
        #expect(error.message.contains("was written with a different model"), "the differences follow the cause: \(error.message)")
        #expect(Data(SHA256.hash(data: try Data(contentsOf: full))) == before)
    }

    @Test("an inferred step's failure states its cause first, not that the store was written with a different model")
    func causeFirst() throws {
        let folder = try TemporaryDirectory()
        let url = folder.file("Items.sqlite")
        try Self.seed(url, items: 1)
        let changed = try ManagedObjectModel {
            EntityDescription("Item") { AttributeDescription("name", .date) }
            EntityDescription("Note") { AttributeDescription("text", .string) }
        }
        let error = try #require(throws: NimbusError.self) {
            try PersistentStoreCoordinator(managedObjectModel: changed).addPersistentStore(with: PersistentStoreDescription(url: url))
        }
        #expect(!error.message.hasPrefix("the store at"), "\(error.message)")
        #expect(error.message.contains("Item.name changed type from string to date"), "\(error.message)")
    }

    @Test("an unreadable old version of a package (an Xcode 3 binary model) blocks only stores written with it")
    func unreadableOldVersion() throws {
        let folder = try TemporaryDirectory()
        let package = folder.file("Journal.xcdatamodeld")
        try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
        // Xcode 3 kept a model as a binary archive, `elements`, and no `contents`.
        let old = package.appendingPathComponent("Journal.xcdatamodel")
        try FileManager.default.createDirectory(at: old, withIntermediateDirectories: true)
        try Data("bplist00\u{0}\u{1}".utf8).write(to: old.appendingPathComponent("elements"))
        try Data().write(to: old.appendingPathComponent("layout"))
        for (from, to) in [("Journal.xcdatamodel", "Journal 2.xcdatamodel"), ("Journal 2.xcdatamodel", "Journal 3.xcdatamodel")] {
            try FileManager.default.copyItem(at: JournalFixtures.package.appendingPathComponent(from), to: package.appendingPathComponent(to))
        }
        try Data(XcodeModelFixtures.currentVersionPlist("Journal 3.xcdatamodel").utf8).write(to: package.appendingPathComponent(".xccurrentversion"))
        let plan = try StagedMigrationPlan(versionsOf: package)
        #expect(plan.stages.map(\.label) == ["Journal 2 → Journal 3"])
        #expect(plan.unreadableVersions["Journal"]?.contains("no contents file") == true, "\(plan.unreadableVersions)")

        // A store of the readable versions migrates.
        let store = folder.file("Journal.sqlite")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try JournalFixtures.version(1))
        try coordinator.removePersistentStore(try coordinator.addPersistentStore(with: PersistentStoreDescription(url: store)))
        #expect(try plan.stages(forStoreAt: store).count == 1)

        // A store of no readable version is told which versions could not be read.
        let other = folder.file("Other.sqlite")
        try Self.seed(other, items: 1)
        let error = try #require(throws: NimbusError.self) { try plan.stages(forStoreAt: other) }
        #expect(error.message.contains("could not be read") && error.message.contains("Journal: "), "\(error.message)")
    }

    /// The Journal mapping with its policy renamed (to one nobody registered).
    static func mapping(policy: String) throws -> MappingModel {
        var mapping = try MappingModel(contentsOf: JournalFixtures.mapping1to2)
        mapping.entityMappings[0].migrationPolicyName = policy
        mapping.sourceModelVersion = "Journal"
        mapping.destinationModelVersion = "Journal 2"
        return mapping
    }

    @Test("a rehearsal runs the plan on a copy: it names an unregistered policy and a validation failure, and leaves the store as it was")
    func rehearsal() throws {
        JournalFixtures.registerPolicy()
        let folder = try TemporaryDirectory()
        let store = folder.file("Journal.sqlite")
        try JournalFixtures.makeStore(at: store)
        let before = Data(SHA256.hash(data: try Data(contentsOf: store)))

        let unregistered = try StagedMigrationPlan(versionsOf: JournalFixtures.package, mappings: [try Self.mapping(policy: "JournalApp.NobodyRegisteredThisPolicy")])
        let preview = try unregistered.preview(storeAt: store)
        #expect(preview[0].entities[0].details.first == "custom policy JournalApp.NobodyRegisteredThisPolicy (not registered: the migration will fail)")
        let refused = try #require(throws: NimbusError.self) { try unregistered.rehearseMigration(ofStoreAt: store) }
        #expect(refused.message.contains("no migration policy is registered as JournalApp.NobodyRegisteredThisPolicy"), "\(refused.message)")
        #expect(refused.message.contains("the store at \(store.path) was not changed"), "\(refused.message)")

        // No score: Entry.score is required in version 2 and has no default.
        var noScore = try Self.mapping(policy: "EntryMigrationPolicy")
        noScore.entityMappings[0].attributeMappings = noScore.entityMappings[0].attributeMappings.map { property in
            property.name == "score" || property.name == "title" ? PropertyMapping(property.name, nil) : property
        }
        let invalid = try StagedMigrationPlan(versionsOf: JournalFixtures.package, mappings: [noScore])
        let details = try invalid.preview(storeAt: store)[0].entities[0].details
        #expect(details.contains("title = default (warning: the source's title is not carried over)"), "\(details)")
        let failure = try #require(throws: NimbusError.self) { try invalid.rehearseMigration(ofStoreAt: store) }
        #expect(failure.validationFailures.contains { $0.description.hasPrefix("Entry.score: is required") }, "\(failure.message)")

        let good = try StagedMigrationPlan(versionsOf: JournalFixtures.package, mappings: [try Self.mapping(policy: "EntryMigrationPolicy")])
        try good.rehearseMigration(ofStoreAt: store)
        #expect(Data(SHA256.hash(data: try Data(contentsOf: store))) == before)
        #expect(try good.stages(forStoreAt: store).count == 1, "the store is still at version 1")
        #expect(!FileManager.default.fileExists(atPath: folder.file(".Journal.sqlite.migration").path))
    }
}
