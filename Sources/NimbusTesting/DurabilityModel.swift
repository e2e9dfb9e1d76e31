import Nimbus

/// The model of the crash-durability worker and of the tests that read its store: counters,
/// batches and their items (a one-to-many with a cascade rule).
public enum DurabilityModel {
    public static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Counter") { AttributeDescription("value", .integer64, defaultValue: 0) }
            EntityDescription("Batch") {
                AttributeDescription("number", .integer64, isOptional: false)
                RelationshipDescription("items", to: "Item", inverse: "batch", toMany: true, deleteRule: .cascade)
            }
            EntityDescription("Item") {
                AttributeDescription("code", .integer64)
                RelationshipDescription("batch", to: "Batch", inverse: "items", isOptional: false)
            }
        }
    }

    /// The model of the search-indexer crash test: notes whose `text` is indexed.
    public static func makeSearch() throws -> ManagedObjectModel {
        try ManagedObjectModel(entities: [
            EntityDescription("Note", attributes: [
                AttributeDescription("number", .integer64, isOptional: false, defaultValue: 0),
                AttributeDescription("text", .string, isIndexedBySpotlight: true),
            ]),
        ])
    }
}
