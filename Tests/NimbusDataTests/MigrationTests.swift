import Foundation
import NimbusData
import Testing

enum JourneysSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Journey.self] }

    @Model final class Journey {
        var title: String = ""
        var rating: Int = 0
        init(title: String, rating: Int) {
            self.title = title
            self.rating = rating
        }
    }
}

enum JourneysSchemaV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Journey.self] }

    @Model final class Journey {
        @Attribute(originalName: "title") var name: String = ""
        var rating: Int = 0
        var notes: String?
        init(name: String) { self.name = name }
    }
}

enum JourneysSchemaV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [Journey.self] }

    @Model final class Journey {
        var name: String = ""
        var stars: Int = 0
        var notes: String?
        init(name: String) { self.name = name }
    }
}

enum JourneysMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [JourneysSchemaV1.self, JourneysSchemaV2.self, JourneysSchemaV3.self] }
    static var stages: [MigrationStage] { [v1ToV2, v2ToV3] }

    static let v1ToV2 = MigrationStage.lightweight(fromVersion: JourneysSchemaV1.self, toVersion: JourneysSchemaV2.self)
    static let v2ToV3 = MigrationStage.custom(
        fromVersion: JourneysSchemaV2.self, toVersion: JourneysSchemaV3.self,
        willMigrate: { context in
            try context.delete(model: JourneysSchemaV2.Journey.self, where: #Predicate { $0.rating < 0 })
            try context.save()
        },
        didMigrate: { context in
            for journey in try context.fetch(FetchDescriptor<JourneysSchemaV3.Journey>()) { journey.stars = 5 }
            try context.save()
        })
}

@Suite("Schema migration plans")
struct MigrationTests {
    @Test("a store of version 1 opens at version 3: a rename by originalName, then a custom stage's closures")
    func migratesAtOpen() throws {
        let url = temporaryStoreURL("Journeys.store")
        do {
            let v1 = try ModelContainer(for: Schema(versionedSchema: JourneysSchemaV1.self),
                                        configurations: ModelConfiguration(url: url, cloudKitDatabase: .none))
            let context = ModelContext(v1)
            context.insert(JourneysSchemaV1.Journey(title: "Oslo", rating: 3))
            context.insert(JourneysSchemaV1.Journey(title: "Nowhere", rating: -1))
            try context.save()
            let coordinator = v1.persistentContainer.persistentStoreCoordinator
            for store in coordinator.persistentStores { try coordinator.removePersistentStore(store) }
        }
        let v3 = try ModelContainer(for: Schema(versionedSchema: JourneysSchemaV3.self), migrationPlan: JourneysMigrationPlan.self,
                                    configurations: ModelConfiguration(url: url, cloudKitDatabase: .none))
        let journeys = try ModelContext(v3).fetch(FetchDescriptor<JourneysSchemaV3.Journey>())
        #expect(journeys.map(\.name) == ["Oslo"])
        #expect(journeys.map(\.stars) == [5])
    }

    @Test("a stage that throws fails the open with a typed error and leaves the store at its version")
    func failingStage() throws {
        enum Plan: SchemaMigrationPlan {
            struct Refused: Error {}
            static var schemas: [any VersionedSchema.Type] { [JourneysSchemaV1.self, JourneysSchemaV2.self] }
            static var stages: [MigrationStage] {
                [.custom(fromVersion: JourneysSchemaV1.self, toVersion: JourneysSchemaV2.self, willMigrate: { _ in throw Refused() }, didMigrate: nil)]
            }
        }
        let url = temporaryStoreURL("Journeys.store")
        do {
            let v1 = try ModelContainer(for: Schema(versionedSchema: JourneysSchemaV1.self),
                                        configurations: ModelConfiguration(url: url, cloudKitDatabase: .none))
            let context = ModelContext(v1)
            context.insert(JourneysSchemaV1.Journey(title: "Oslo", rating: 3))
            try context.save()
            let coordinator = v1.persistentContainer.persistentStoreCoordinator
            for store in coordinator.persistentStores { try coordinator.removePersistentStore(store) }
        }
        #expect(throws: SwiftDataError.self) {
            try ModelContainer(for: Schema(versionedSchema: JourneysSchemaV2.self), migrationPlan: Plan.self,
                               configurations: ModelConfiguration(url: url, cloudKitDatabase: .none))
        }
        let v1 = try ModelContainer(for: Schema(versionedSchema: JourneysSchemaV1.self),
                                    configurations: ModelConfiguration(url: url, cloudKitDatabase: .none))
        #expect(try ModelContext(v1).fetch(FetchDescriptor<JourneysSchemaV1.Journey>()).map(\.title) == ["Oslo"])
    }
}
