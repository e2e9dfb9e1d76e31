import Foundation
import Nimbus
import NimbusCloud
import NimbusTesting

/// Two versions of an app's model, as an app ships them a few months apart: v2 adds an
/// entity (`Album`, which sorts first, so every entity number moves), a field (`Post.mood`)
/// and a many-to-many relationship (`Album.posts` ↔ `Post.albums`). One store, mirrored.
enum LifeModels {
    /// Model v1; with `summary`, the version a mapping model makes from it
    /// (``MappingMigrationSyncTests``): `Post.summary` added.
    static func v1(summary: Bool = false) throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Post") {
                AttributeDescription("title", .string)
                AttributeDescription("body", .string)
                AttributeDescription("views", .integer64, defaultValue: 0)
                AttributeDescription("rating", .double)
                if summary { AttributeDescription("summary", .string) }
                RelationshipDescription("tags", to: "Tag", inverse: "posts", toMany: true)
                RelationshipDescription("notes", to: "Note", inverse: "post", toMany: true, deleteRule: .cascade)
            }
            EntityDescription("Tag", uniquenessConstraints: [["name"]]) {
                AttributeDescription("name", .string)
                AttributeDescription("color", .string)
                RelationshipDescription("posts", to: "Post", inverse: "tags", toMany: true)
                RelationshipDescription("notes", to: "Note", inverse: "tag", toMany: true)
            }
            EntityDescription("Note") {
                AttributeDescription("text", .string)
                RelationshipDescription("post", to: "Post", inverse: "notes")
                RelationshipDescription("tag", to: "Tag", inverse: "notes")
            }
        }
    }

    static func v2() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Album") {
                AttributeDescription("name", .string)
                RelationshipDescription("posts", to: "Post", inverse: "albums", toMany: true)
            }
            EntityDescription("Post") {
                AttributeDescription("title", .string)
                AttributeDescription("body", .string)
                AttributeDescription("views", .integer64, defaultValue: 0)
                AttributeDescription("rating", .double)
                AttributeDescription("mood", .integer16)
                RelationshipDescription("tags", to: "Tag", inverse: "posts", toMany: true)
                RelationshipDescription("notes", to: "Note", inverse: "post", toMany: true, deleteRule: .cascade)
                RelationshipDescription("albums", to: "Album", inverse: "posts", toMany: true)
            }
            EntityDescription("Tag", uniquenessConstraints: [["name"]]) {
                AttributeDescription("name", .string)
                AttributeDescription("color", .string)
                RelationshipDescription("posts", to: "Post", inverse: "tags", toMany: true)
                RelationshipDescription("notes", to: "Note", inverse: "tag", toMany: true)
            }
            EntityDescription("Note") {
                AttributeDescription("text", .string)
                RelationshipDescription("post", to: "Post", inverse: "notes")
                RelationshipDescription("tag", to: "Tag", inverse: "notes")
            }
        }
    }

    /// A device whose one store (in `folder`) mirrors through `server`, synced by hand.
    static func device(_ server: SyncServer, token: String, model: ManagedObjectModel, folder: TemporaryDirectory) throws -> Device {
        let container = CloudContainer(name: "life", managedObjectModel: model)
        container.automaticallySyncs = false
        var description = PersistentStoreDescription(url: folder.url.appendingPathComponent("Life.sqlite"))
        description.cloudContainerOptions = CloudContainerOptions(serverURL: server.url, containerIdentifier: "life", token: token)
        container.persistentStoreDescriptions = [description]
        try container.loadPersistentStores()
        return Device.wrapping(container, folder: folder)
    }
}

extension Device {
    /// Closes the device's stores (as an app quits before its update is installed).
    func close() throws {
        let coordinator = container.persistentStoreCoordinator
        for store in coordinator.persistentStores { try coordinator.removePersistentStore(store) }
    }
}
