import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// Mapping models as Xcode writes them, run on stores with data.
@Suite("Xcode mapping models with data")
struct XcodeMappingModelTests {
    @Test("bare property names under an entity mapping that generates expressions read as $source.<name>")
    func bareNames() throws {
        let mapping = try MappingModel(contentsOf: JournalFixtures.mapping1to2)
        #expect(mapping.entityMappings.map(\.name) == ["EntryToEntry", "PersonToPerson", "TagToTag"])
        let entry = mapping.entityMappings[0]
        let expressions = Dictionary(uniqueKeysWithValues: (entry.attributeMappings + entry.relationshipMappings).map { ($0.name, $0.valueExpression?.description ?? "default") })
        #expect(expressions["title"] == "$source.title")
        #expect(expressions["body"] == "$source.body")
        #expect(expressions["score"] == "FUNCTION($entityPolicy, \"scoreForMood:\", $source.mood)")
        #expect(expressions["summary"] == "FUNCTION($entityPolicy, \"summaryOfEntry:\", $source)")
        #expect(expressions["writer"] == "FUNCTION($manager, \"destinationInstancesForSourceRelationshipNamed:sourceInstances:\", \"author\", $source.author)")
        #expect(mapping.entityMappings[1].attributeMappings.first?.valueExpression?.description == "$source.name")
        #expect(entry.migrationPolicyName == "$(PRODUCT_MODULE_NAME).EntryMigrationPolicy")
    }

    @Test("a store with data migrates through an Xcode mapping model and keeps every value")
    func migratesWithData() throws {
        JournalFixtures.registerPolicy()
        let folder = try TemporaryDirectory()
        let source = folder.file("Journal.sqlite")
        try JournalFixtures.makeStore(at: source)
        let destination = folder.file("Journal2.sqlite")
        let manager = MigrationManager(sourceModel: try JournalFixtures.version(1), destinationModel: try JournalFixtures.version(2))
        try manager.migrateStore(from: source, to: destination, mapping: try MappingModel(contentsOf: JournalFixtures.mapping1to2))

        let coordinator = PersistentStoreCoordinator(managedObjectModel: try JournalFixtures.version(2))
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: destination))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            let entries = try context.all("Entry", sortedBy: "title")
            #expect(entries.map { $0.value(forKey: "title") as? String } == ["First", "Second", "Third"])
            #expect(entries.map { $0.value(forKey: "body") as? String } == ["hello", nil, nil])
            #expect(entries[0].value(forKey: "created") as? Date == Date(timeIntervalSinceReferenceDate: 1000))
            #expect(entries.map { "\($0.value(forKey: "score") ?? "nil")" } == ["30", "10", "0"])
            #expect(entries.map { $0.value(forKey: "summary") as? String } == ["First (3)", "Second (1)", "Third (0)"])
            let writers = entries.map { ($0.value(forKey: "writer") as? ManagedObject)?.value(forKey: "name") as? String }
            #expect(writers == ["Ada", "Ada", nil])
            let tags = entries.map { (($0.value(forKey: "tags") as? Set<ManagedObject>) ?? []).compactMap { $0.value(forKey: "name") as? String }.sorted() }
            #expect(tags == [["home", "work"], ["work"], []])
            let people = try context.all("Person")
            #expect(people.count == 1 && (people[0].value(forKey: "entries") as? Set<ManagedObject>)?.count == 2)
        }
    }

    @Test("a policy named as Xcode writes it finds the registered Swift type", arguments: [
        "$(PRODUCT_MODULE_NAME).EntryMigrationPolicy", "JournalApp.EntryMigrationPolicy", "_TtC10JournalApp20EntryMigrationPolicy", "EntryMigrationPolicy",
    ])
    func policyNames(_ name: String) {
        JournalFixtures.registerPolicy()
        #expect(MigrationPolicies.policyType(named: name).map(ObjectIdentifier.init) == ObjectIdentifier(JournalFixtures.EntryMigrationPolicy.self))
    }

    @Test("an Objective-C class name without a module finds a policy registered with its module")
    func bareObjectiveCName() {
        MigrationPolicies.register(JournalFixtures.EntryMigrationPolicy.self, as: "JournalApp.TagMergePolicy")
        #expect(MigrationPolicies.policyType(named: "TagMergePolicy").map(ObjectIdentifier.init) == ObjectIdentifier(JournalFixtures.EntryMigrationPolicy.self))
        #expect(MigrationPolicies.policyType(named: "NoSuchPolicy") == nil)
    }
}
