import Foundation
import Testing
import Nimbus
import NimbusTesting

/// The seeds' sample model over two stores: Post, Tag, Attachment and ImageData in a
/// "Cloud" configuration, Location in a "Local" one, one context over both.
@Suite("Seed model over two stores")
struct SeedModelTwoStoresTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(configurations: ["Cloud": ["Post", "Tag", "Attachment", "ImageData"], "Local": ["Location"]]) {
            EntityDescription("Post") {
                AttributeDescription("title", .string)
                AttributeDescription("content", .string)
                RelationshipDescription("tags", to: "Tag", inverse: "posts", toMany: true)
                RelationshipDescription("attachments", to: "Attachment", inverse: "post", toMany: true, deleteRule: .cascade)
            }
            EntityDescription("Tag", uniquenessConstraints: [["name"]]) {
                AttributeDescription("name", .string)
                RelationshipDescription("posts", to: "Post", inverse: "tags", toMany: true)
            }
            EntityDescription("Attachment") {
                AttributeDescription("name", .string)
                RelationshipDescription("post", to: "Post", inverse: "attachments")
                RelationshipDescription("imageData", to: "ImageData", inverse: "attachment", deleteRule: .cascade)
            }
            EntityDescription("ImageData") {
                AttributeDescription("data", .binaryData)
                RelationshipDescription("attachment", to: "Attachment", inverse: "imageData")
            }
            EntityDescription("Location") {
                AttributeDescription("name", .string)
                AttributeDescription("latitude", .double)
            }
        }
    }

    @Test("one save writes each configuration's objects to its store; a conflict in either store writes nothing; object trump upserts tags")
    func seedModel() throws {
        let folder = try TemporaryDirectory()
        let model = try Self.model()
        func coordinator() throws -> PersistentStoreCoordinator {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            var cloud = PersistentStoreDescription(url: folder.file("Cloud.sqlite"))
            cloud.configuration = "Cloud"
            var local = PersistentStoreDescription(url: folder.file("Local.sqlite"))
            local.configuration = "Local"
            try coordinator.addPersistentStore(with: cloud)
            try coordinator.addPersistentStore(with: local)
            return coordinator
        }
        let first = try coordinator()
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: first)
        try context.performAndWait { () throws in
            let post = try context.insert("Post", ["title": "Hello", "content": "…"])
            let tag = try context.insert("Tag", ["name": "swift"])
            post.setValue(Set([tag]), forKey: "tags")
            let attachment = try context.insert("Attachment", ["name": "photo"])
            let image = try context.insert("ImageData", ["data": Data([1, 2, 3])])
            attachment.setValue(image, forKey: "imageData")
            attachment.setValue(post, forKey: "post")
            _ = try context.insert("Location", ["name": "home", "latitude": 48.85])
            try context.save()
            let cloud = try #require(first.persistentStores.first { $0.configurationName == "Cloud" })
            let local = try #require(first.persistentStores.first { $0.configurationName == "Local" })
            #expect(post.objectID.storeIdentifier == cloud.identifier)
            #expect(try context.fetch(FetchRequest<ManagedObject>(entityName: "Location")).first?.objectID.storeIdentifier == local.identifier)

            // A duplicate tag fails the Cloud part: the Local part is not written either.
            _ = try context.insert("Location", ["name": "work", "latitude": 48.9])
            let duplicate = try context.insert("Tag", ["name": "swift"])
            #expect { try context.save() } throws: { ($0 as? NimbusError)?.code == .constraintConflict }
            context.mergePolicy = .mergeByPropertyObjectTrump
            try context.save()
            // The stored tag's object is registered here: the duplicate merged into it and left.
            #expect(duplicate.managedObjectContext == nil && tag.managedObjectContext === context)
        }
        let second = try coordinator()
        let reader = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: second)
        try reader.performAndWait { () throws in
            #expect(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Tag")) == 1)
            #expect(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Location")) == 2)
            let post = try #require(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Post")).first)
            let attachment = try #require((post.value(forKey: "attachments") as? Set<ManagedObject>)?.first)
            #expect((attachment.value(forKey: "imageData") as? ManagedObject)?.value(forKey: "data") as? Data == Data([1, 2, 3]))
        }
    }
}
