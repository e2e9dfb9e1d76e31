import Foundation
import Nimbus
import NimbusTesting
import Testing

/// A coordinator over the seed model's two stores: cloud.sqlite and local.sqlite.
final class TwoStores: @unchecked Sendable {
    let folder: TemporaryDirectory
    let model: ManagedObjectModel

    init() throws {
        folder = try TemporaryDirectory()
        model = try SeedModel.make()
    }

    func context() throws -> ManagedObjectContext {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var cloud = PersistentStoreDescription(url: folder.file("cloud.sqlite"))
        cloud.configuration = "Cloud"
        var local = PersistentStoreDescription(url: folder.file("local.sqlite"))
        local.configuration = "Local"
        try coordinator.addPersistentStore(with: cloud)
        try coordinator.addPersistentStore(with: local)
        return ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
    }
}

@Suite("The seeds' sample model through @Managed classes")
struct SeedModelTests {
    @Test("the entity of each class comes from its declarations")
    func entities() throws {
        let model = try SeedModel.make()
        let post = try model.entity(named: "Post")
        #expect(post.managedObjectClass == Post.self)
        #expect(post.properties.map(\.name) == ["attachments", "content", "createdAt", "identifier", "isDraft", "tags", "title", "views"])
        #expect(post.attributesByName["title"]?.type == .string)
        #expect(post.attributesByName["title"]?.isOptional == true)
        #expect(post.attributesByName["views"]?.isOptional == false)
        #expect(post.attributesByName["views"]?.defaultValue == .integer(0))
        #expect(post.attributesByName["isDraft"]?.defaultValue == .bool(true))
        #expect(post.uniquenessConstraints == [["identifier"]])
        #expect(post.fetchIndexes.map(\.name) == ["byTitle"])
        let attachments = try #require(post.relationshipsByName["attachments"])
        #expect(attachments.isToMany && attachments.isOrdered && attachments.deleteRule == .cascade && attachments.inverseName == "post")
        // Inverses named on one side are completed on the other; unnamed ones are inferred.
        #expect(model.entitiesByName["Attachment"]?.relationshipsByName["post"]?.inverseName == "attachments")
        #expect(model.entitiesByName["Tag"]?.relationshipsByName["posts"]?.inverseName == "tags")
        #expect(model.entitiesByName["ImageData"]?.relationshipsByName["attachment"]?.inverseName == "imageData")
        #expect(model.entitiesByName["ImageData"]?.attributesByName["data"]?.allowsExternalBinaryDataStorage == true)
        #expect(model.entities(forConfiguration: "Local").map(\.name) == ["Location"])
        #expect(Post.entity() === model.entitiesByName["Post"])
        let request: FetchRequest<Post> = Post.fetchRequest()
        #expect(request.entityName == "Post")
    }

    @Test("objects made with init(context:) save to the store of their configuration and read back typed")
    func twoStores() throws {
        let stores = try TwoStores()
        let identifier = UUID()
        let context = try stores.context()
        try context.performAndWait {
            let post = Post(context: context)
            post.identifier = identifier
            post.title = "Hello from Nimbus"
            post.createdAt = Date(timeIntervalSinceReferenceDate: 1000)
            post.views = 7
            post.isDraft = false
            let swift = Tag(context: context)
            swift.name = "swift"
            let linux = Tag(context: context)
            linux.name = "linux"
            post.tags = [swift, linux]
            let first = Attachment(context: context)
            first.fileName = "a.png"
            let image = ImageData(context: context)
            image.data = Data(repeating: 7, count: 300_000)
            first.imageData = image
            let second = Attachment(context: context)
            second.fileName = "b.png"
            post.attachments = [second, first]
            let location = Location(context: context)
            location.latitude = 37.33
            location.longitude = -122.01
            location.postIdentifier = identifier
            // The inverse side is maintained at once.
            #expect(swift.posts == [post])
            #expect(first.post === post)
            #expect(image.attachment === first)
            try context.save()
        }

        let reopened = try stores.context()
        try reopened.performAndWait {
            let posts = try Post.fetchRequest().execute()
            let post = try #require(posts.first)
            #expect(posts.count == 1)
            #expect(post.title == "Hello from Nimbus")
            #expect(post.headline == "HELLO FROM NIMBUS")
            #expect(post.views == 7)
            #expect(post.isDraft == false)
            #expect(post.identifier == identifier)
            #expect(post.content == nil)
            #expect(post.createdAt == Date(timeIntervalSinceReferenceDate: 1000))
            #expect(Set(post.tags.map(\.name)) == ["swift", "linux"])
            #expect(post.attachments.map(\.fileName) == ["b.png", "a.png"])
            #expect(post.attachments[1].imageData?.data?.count == 300_000)
            let location = try #require(try Location.fetchRequest().execute().first)
            #expect(location.latitude == 37.33 && location.longitude == -122.01)
            #expect(location.postIdentifier == identifier)
            // Each object lives in the store of its configuration.
            let coordinator = reopened.persistentStoreCoordinator
            #expect(coordinator.persistentStore(identifier: post.objectID.storeIdentifier)?.configurationName == "Cloud")
            #expect(coordinator.persistentStore(identifier: location.objectID.storeIdentifier)?.configurationName == "Local")
        }
    }

    @Test("#Predicate over a @Managed class runs as SQL, through key paths the macro names")
    func predicates() throws {
        let stores = try TwoStores()
        let context = try stores.context()
        try context.performAndWait {
            for (index, title) in ["alpha", "beta", "gamma", "delta"].enumerated() {
                let post = Post(context: context)
                post.title = title
                post.views = Int64(index * 10)
            }
            let tag = Tag(context: context)
            tag.name = "greek"
            tag.posts = Set(try Post.fetchRequest().execute().filter { $0.title != "delta" })
            try context.save()

            let popular = try FetchRequest<Post>(entityName: "Post", predicate: #Predicate<Post> { $0.views >= 10 && $0.title != "delta" })
            #expect(Set(try popular.execute().compactMap(\.title)) == ["beta", "gamma"])
            let tagged = try FetchRequest<Tag>(entityName: "Tag", predicate: #Predicate<Tag> { tag in
                tag.posts.contains { $0.title == "alpha" }
            })
            #expect(try tagged.execute().map(\.name) == ["greek"])
            var request = Post.fetchRequest()
            request.predicate = try QueryPredicate(#Predicate<Post> { $0.title?.starts(with: "g") ?? false })
            #expect(try request.execute().map(\.title) == ["gamma"])
        }
    }

    @Test("setting a typed property marks the object changed; a rollback restores the saved value")
    func changes() throws {
        let stores = try TwoStores()
        let context = try stores.context()
        try context.performAndWait {
            let post = Post(context: context)
            post.title = "first"
            try context.save()
            #expect(!post.hasChanges)
            post.title = "second"
            #expect(post.isUpdated)
            #expect(post.changedValues()["title"] as? String == "second")
            context.rollback()
            #expect(post.title == "first")
            post.title = nil
            #expect(post.title == nil)
            #expect(post.value(forKey: "title") == nil)
        }
    }

    @Test("execute() outside a context's block is a clear error")
    func executeOutsideContext() throws {
        _ = try SeedModel.make()
        #expect(throws: NimbusError.self) { try Post.fetchRequest().execute() }
        do {
            _ = try Post.fetchRequest().execute()
        } catch let error as NimbusError {
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("perform"))
        }
    }
}
