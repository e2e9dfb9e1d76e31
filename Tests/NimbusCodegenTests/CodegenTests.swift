import Foundation
import Nimbus
import NimbusCodegenFixture
import NimbusTesting
import Testing

@Suite("nimbus codegen output")
struct CodegenTests {
    @Test("the checked-in generated code is what the generator writes today", arguments: ManagedCodeGenerator.Style.allCases)
    func upToDate(style: ManagedCodeGenerator.Style) throws {
        let generated = ManagedCodeGenerator(style: style).files(for: try CodegenFixtures.model(for: style))
        let checkedIn = try CodegenFixtures.checkedIn(style)
        #expect(Set(generated.map(\.name)) == Set(checkedIn.keys), "regenerate Tests/NimbusCodegenFixture with nimbus codegen")
        for file in generated {
            #expect(checkedIn[file.name] == file.contents, "\(file.name) is out of date: regenerate it with nimbus codegen")
        }
    }

    @Test("classes generated for the Xcode model work against the model file")
    func generatedClassesWithModelFile() throws {
        let model = try ManagedObjectModel(contentsOf: CodegenFixtures.postsModel)
            .withClasses(Attachment.self, ImageAttachment.self, Person.self, Post.self, Tag.self)
        try exercisePosts(model)
    }

    @Test("a container finds the model among a bundle's resources by name and uses the generated classes")
    func containerFromBundle() throws {
        let resources = try TemporaryDirectory()
        try FileManager.default.copyItem(at: CodegenFixtures.postsModel, to: resources.file("Posts.xcdatamodeld"))
        let bundle = try #require(Bundle(url: resources.url))
        let container = try PersistentContainer(name: "Posts", bundle: bundle,
                                                classes: [Attachment.self, ImageAttachment.self, Person.self, Post.self, Tag.self])
        #expect(container.managedObjectModel.entitiesByName["Post"]?.managedObjectClass == Post.self)
        let stores = try TemporaryDirectory()
        container.persistentStoreDescriptions = [PersistentStoreDescription(url: stores.file("Posts.sqlite"))]
        try container.loadPersistentStores()
        let context = container.newBackgroundContext()
        try context.performAndWait {
            let post = Post(context: context)
            post.title = "From the bundle"
            try context.save()
            context.reset()
            #expect(try Post.fetchRequest().execute().map(\.title) == ["From the bundle"])
        }
        try exercisePosts(container.managedObjectModel)

        do {
            _ = try PersistentContainer(name: "Missing", bundle: bundle)
            Issue.record("a container was made without a model")
        } catch let error as NimbusError {
            #expect(error.code == .io)
            #expect(error.message.contains("Missing.xcdatamodeld"))
        }
    }

    @Test("classes generated for the Xcode model make a model of their own, with the store's version hashes")
    func generatedClassesOwnModel() throws {
        let fromFile = try ManagedObjectModel(contentsOf: CodegenFixtures.postsModel)
        let fromClasses = try ManagedObjectModel(Attachment.self, ImageAttachment.self, Person.self, Post.self, Tag.self)
        // Transformable and versionHashModifier-bearing attributes are what the classes
        // cannot declare; every other entity hashes as the model file does.
        for name in ["Attachment", "ImageAttachment", "Tag"] {
            #expect(fromClasses.entityVersionHashesByName[name] == fromFile.entityVersionHashesByName[name], "\(name)")
        }
        try exercisePosts(fromClasses)
    }

    func exercisePosts(_ model: ManagedObjectModel) throws {
        let folder = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: folder.file("Posts.sqlite")))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait {
            let author = Person(context: context)
            author.name = "Ada"
            author.email = "ada@example.com"
            let post = Post(context: context)
            #expect(post.title == "Untitled")
            #expect(post.isDraft)
            #expect(post.score == 1.5)
            post.title = "Notes"
            post.rating = 4
            post.author = author
            let tag = Tag(context: context)
            tag.name = "math"
            post.tags = [tag]
            let image = ImageAttachment(context: context)
            image.fileName = "engine.png"
            image.width = 640
            image.height = 480
            post.attachments = [image]
            try context.save()
            context.reset()

            let posts = try Post.fetchRequest().execute()
            let fetched = try #require(posts.first)
            #expect(fetched.title == "Notes" && fetched.rating == 4)
            #expect(fetched.author?.name == "Ada")
            #expect(fetched.tags.map(\.name) == ["math"])
            let attachment = try #require(fetched.attachments.first as? ImageAttachment)
            #expect(attachment.width == 640 && attachment.fileName == "engine.png")
            let rated = try FetchRequest<Post>(entityName: "Post", predicate: #Predicate<Post> { $0.rating >= 4 && $0.title == "Notes" })
            #expect(try rated.execute().count == 1)
            let byAuthor = try FetchRequest<Person>(entityName: "Person", predicate: #Predicate<Person> { person in
                person.posts.contains { $0.rating > 3 }
            })
            #expect(try byAuthor.execute().map(\.name) == ["Ada"])
        }
    }

    @Test("extensions generated for a JSON model work with the classes declared by hand")
    func generatedExtensions() throws {
        ArchiveTransformers.register("ColorTransformer", allowedClasses: ["UIColor"])
        let model = try ManagedObjectModel(contentsOf: CodegenFixtures.libraryModel).withClasses(["Author": Author.self, "Book": Book.self])
        let folder = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: folder.file("Library.sqlite")))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait {
            let author = Author(context: context)
            #expect(author.name == "Anonymous")
            author.name = "Ursula"
            let book = Book(context: context)
            book.title = "The Dispossessed"
            book.pages = 387
            book.isbn = UUID()
            book.author = author
            // Transformables kept as keyed archives get typed properties from their class.
            book.keywords = ["anarchy", "physics"]
            book.tint = ArchivedColor(red: 0.1, green: 0.2, blue: 0.3)
            #expect(author.books == [book])
            try context.save()
            context.reset()
            let long = try FetchRequest<Book>(entityName: "Book", predicate: #Predicate<Book> { $0.pages > 300 }).execute()
            #expect(long.map(\.title) == ["The Dispossessed"])
            #expect(long.first?.author?.displayName == "Ursula")
            #expect(long.first?.keywords == ["anarchy", "physics"])
            #expect(long.first?.tint == ArchivedColor(red: 0.1, green: 0.2, blue: 0.3))
        }
    }
}
