import Foundation
import Nimbus
import NimbusTesting

/// `Fixtures/Journal.xcdatamodeld` (versions `Journal` and `Journal 2`) and
/// `Journal1to2.xcmappingmodel`, drawn as Xcode writes them: most property mappings are a
/// bare name under an entity mapping that generates expressions; `score` and `summary` call
/// the custom policy (`$(PRODUCT_MODULE_NAME).EntryMigrationPolicy`), `writer` is filled by
/// `destinationInstancesForSourceRelationshipNamed:sourceInstances:` from `author`.
enum JournalFixtures {
    static var package: URL { XcodeModelFixtures.directory.appendingPathComponent("Journal.xcdatamodeld") }
    static var mapping1to2: URL { XcodeModelFixtures.directory.appendingPathComponent("Journal1to2.xcmappingmodel") }

    static func version(_ n: Int) throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: package.appendingPathComponent(n == 1 ? "Journal.xcdatamodel" : "Journal \(n).xcdatamodel"))
    }

    /// The policy the mapping names: a score from the mood, a summary of the whole object.
    struct EntryMigrationPolicy: EntityMigrationPolicy {
        func function(named selector: String, arguments: [Any?], manager: MigrationManager) throws -> Any? {
            switch selector {
            case "scoreForMood:": return (Int64(arguments.first.flatMap { $0.map { "\($0)" } } ?? "") ?? 0) * 10
            case "summaryOfEntry:":
                guard let entry = arguments.first as? ManagedObject else { return nil }
                return "\(entry.value(forKey: "title") as? String ?? "?") (\(entry.value(forKey: "mood").map { "\($0)" } ?? "-"))"
            default: return nil
            }
        }
    }

    static func registerPolicy() {
        MigrationPolicies.register(EntryMigrationPolicy.self, as: "EntryMigrationPolicy")
    }

    /// A version-1 store: two entries by Ada with tags, one entry with nothing.
    static func makeStore(at url: URL) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try version(1))
        let store = try coordinator.addPersistentStore(with: PersistentStoreDescription(url: url))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            let ada = try context.insert("Person", ["name": "Ada"])
            let work = try context.insert("Tag", ["name": "work"])
            let home = try context.insert("Tag", ["name": "home"])
            _ = try context.insert("Entry", ["title": "First", "body": "hello", "created": Date(timeIntervalSinceReferenceDate: 1000), "mood": 3, "author": ada, "tags": [work, home]])
            _ = try context.insert("Entry", ["title": "Second", "mood": 1, "author": ada, "tags": [work]])
            _ = try context.insert("Entry", ["title": "Third"])
            try context.save()
        }
        try coordinator.removePersistentStore(store)
    }
}
