import Foundation
import Nimbus
import NimbusTesting

/// The seeds' two-store setup: a "Cloud" configuration (posts, tags) and a "Local" one
/// (locations), each in its own SQLite file of one coordinator; items live in both.
final class TwoStoreStack: @unchecked Sendable {
    let folder: TemporaryDirectory
    let model: ManagedObjectModel
    let coordinator: PersistentStoreCoordinator
    let cloud: PersistentStore
    let local: PersistentStore

    static func makeModel() throws -> ManagedObjectModel {
        try ManagedObjectModel(configurations: ["Cloud": ["Post", "Tag", "Item"], "Local": ["Location", "Item"]]) {
            EntityDescription("Post") {
                AttributeDescription("title", .string)
                RelationshipDescription("tags", to: "Tag", inverse: "posts", toMany: true)
            }
            EntityDescription("Tag", uniquenessConstraints: [["name"]]) {
                AttributeDescription("name", .string)
                RelationshipDescription("posts", to: "Post", inverse: "tags", toMany: true)
            }
            EntityDescription("Location", uniquenessConstraints: [["name"]]) {
                AttributeDescription("name", .string)
            }
            EntityDescription("Item") {
                AttributeDescription("n", .integer64, defaultValue: 0)
                AttributeDescription("group", .string)
            }
        }
    }

    init(readOnlyLocal: Bool = false) throws {
        folder = try TemporaryDirectory()
        model = try Self.makeModel()
        coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var cloudDescription = PersistentStoreDescription(url: folder.file("Cloud.sqlite"))
        cloudDescription.configuration = "Cloud"
        var localDescription = PersistentStoreDescription(url: folder.file("Local.sqlite"))
        localDescription.configuration = "Local"
        cloud = try coordinator.addPersistentStore(with: cloudDescription)
        local = try coordinator.addPersistentStore(with: localDescription)
    }

    func newContext() -> ManagedObjectContext {
        ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
    }

    /// The store a save writes second (saves write stores in identifier order).
    var laterStore: PersistentStore { cloud.identifier < local.identifier ? local : cloud }
    /// The store a save writes first.
    var earlierStore: PersistentStore { laterStore === cloud ? local : cloud }

    /// The entity with a unique `name` held by a store.
    func uniqueEntity(in store: PersistentStore) -> String { store === cloud ? "Tag" : "Location" }

    /// Rows of an entity in the files, read by a fresh coordinator.
    func count(_ entity: String) throws -> Int {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        for store in [cloud, local] {
            var description = store.storeDescription
            description.isReadOnly = true
            try coordinator.addPersistentStore(with: description)
        }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        return try context.performAndWait { try context.count(for: FetchRequest<ManagedObject>(entityName: entity)) }
    }
}
