import Foundation
@testable import Nimbus

/// A model and store for predicate tests: people with a company, pets and tags.
enum PredicateTestSupport {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription("Company", attributes: [
                AttributeDescription("name", .string),
            ], relationships: [
                RelationshipDescription("employees", to: "Person", inverse: "employer", toMany: true),
            ]),
            EntityDescription("Person", attributes: [
                AttributeDescription("name", .string),
                AttributeDescription("nickname", .string),
                AttributeDescription("age", .integer32),
                AttributeDescription("score", .double),
                AttributeDescription("balance", .decimal),
                AttributeDescription("isActive", .boolean),
                AttributeDescription("birthday", .date),
                AttributeDescription("uid", .uuid),
            ], relationships: [
                RelationshipDescription("employer", to: "Company", inverse: "employees"),
                RelationshipDescription("pets", to: "Pet", inverse: "owner", toMany: true),
                RelationshipDescription("tags", to: "Tag", inverse: "people", toMany: true),
            ]),
            EntityDescription("Pet", attributes: [
                AttributeDescription("name", .string),
                AttributeDescription("weight", .double),
            ], relationships: [
                RelationshipDescription("owner", to: "Person", inverse: "pets"),
            ]),
            EntityDescription("Tag", attributes: [
                AttributeDescription("name", .string),
            ], relationships: [
                RelationshipDescription("people", to: "Person", inverse: "tags", toMany: true),
            ]),
        ])
    }

    /// A container on a fresh SQLite file in a temporary directory.
    static func container() throws -> (PersistentContainer, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-predicates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let container = PersistentContainer(name: "Predicates", managedObjectModel: try model())
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: directory.appendingPathComponent("store.sqlite"))]
        try container.loadPersistentStores()
        return (container, directory)
    }

    /// A compiler for an entity of the test model.
    static func compiler(_ entityName: String = "Person") throws -> PredicateSQLCompiler {
        let model = try model()
        return PredicateSQLCompiler(entity: try model.entity(named: entityName), schema: model.schema)
    }
}

/// A small deterministic random generator (SplitMix64), so failures reproduce.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
