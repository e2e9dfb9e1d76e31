import Foundation
import Nimbus
import NimbusTesting

/// The sample model of the seeds: people write posts, posts have tags and attachments.
enum PostsModel {
    static func make() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Person") {
                AttributeDescription("name", .string, isOptional: false, minLength: 1, maxLength: 50)
                AttributeDescription("age", .integer16, minValue: 0, maxValue: 150)
                AttributeDescription("email", .string, regularExpression: "[^@]+@[^@]+")
                RelationshipDescription("posts", to: "Post", inverse: "author", toMany: true, deleteRule: .cascade)
                RelationshipDescription("bestFriend", to: "Person", inverse: "bestFriendOf", deleteRule: .nullify)
                RelationshipDescription("bestFriendOf", to: "Person", inverse: "bestFriend", deleteRule: .nullify)
            }
            EntityDescription("Post") {
                AttributeDescription("title", .string)
                AttributeDescription("body", .string)
                AttributeDescription("views", .integer64, defaultValue: 0)
                AttributeDescription("rating", .double)
                AttributeDescription("published", .boolean, defaultValue: false)
                AttributeDescription("createdAt", .date)
                AttributeDescription("identifier", .uuid)
                AttributeDescription("link", .uri)
                AttributeDescription("price", .decimal)
                AttributeDescription("thumbnail", .binaryData)
                RelationshipDescription("author", to: "Person", inverse: "posts")
                RelationshipDescription("tags", to: "Tag", inverse: "posts", toMany: true)
                RelationshipDescription("attachments", to: "Attachment", inverse: "post", toMany: true, ordered: true, deleteRule: .cascade)
            }
            EntityDescription("Tag") {
                AttributeDescription("name", .string, isOptional: false, preservesValueInHistoryOnDeletion: true)
                RelationshipDescription("posts", to: "Post", inverse: "tags", toMany: true, deleteRule: .deny)
            }
            EntityDescription("Attachment", isAbstract: true) {
                AttributeDescription("fileName", .string)
                RelationshipDescription("post", to: "Post", inverse: "attachments")
            }
            EntityDescription("ImageAttachment", parent: "Attachment") {
                AttributeDescription("width", .integer32)
                AttributeDescription("height", .integer32)
            }
            EntityDescription("FileAttachment", parent: "Attachment") {
                AttributeDescription("size", .integer64)
            }
        }
    }
}

/// A coordinator with one SQLite store in a temporary folder, and helpers to reopen it.
final class TestStack: @unchecked Sendable {
    let folder: TemporaryDirectory
    let model: ManagedObjectModel
    let url: URL
    let coordinator: PersistentStoreCoordinator
    let store: PersistentStore

    init(model: ManagedObjectModel? = nil, recordSQL: Bool = false, type: PersistentStoreDescription.StoreType = .sqlite,
         history: Bool = false) throws {
        folder = try TemporaryDirectory()
        self.model = try model ?? PostsModel.make()
        url = folder.file("Posts.sqlite")
        coordinator = PersistentStoreCoordinator(managedObjectModel: self.model)
        var description = PersistentStoreDescription(type: type, url: type == .sqlite ? url : nil)
        if recordSQL { description.options["recordSQL"] = "1" }
        description.persistentHistoryTracking = history
        store = try coordinator.addPersistentStore(with: description)
    }

    func newContext() -> ManagedObjectContext {
        ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
    }

    /// A context on a new coordinator of the same file: sees only what was saved.
    func reopenedContext(history: Bool = false) throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var description = PersistentStoreDescription(url: url)
        description.persistentHistoryTracking = history
        try coordinator.addPersistentStore(with: description)
        return ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
    }
}

extension ManagedObjectContext {
    func insert(_ entity: String, _ values: [String: Any]) throws -> ManagedObject {
        let object = try insertNewObject(forEntityName: entity)
        for (key, value) in values { try object.setValidatedValue(value, forKey: key) }
        return object
    }

    func all(_ entity: String, sortedBy key: String? = nil) throws -> [ManagedObject] {
        var request = FetchRequest<ManagedObject>(entityName: entity)
        if let key { request.sortDescriptors = [FetchSortDescriptor(key)] }
        return try fetch(request)
    }
}
