import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// Issue 28, item 3: derived attributes are computed on save as Core Data computes them —
/// `.@count`, `now()`, `lowercase:`/`canonical:` of a key path, a to-one destination's
/// attribute — and are stored, so predicates and sorts use them in SQL.
@Suite("Derived attributes")
struct DerivedAttributeTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Person") {
                AttributeDescription("name", .string)
                RelationshipDescription("posts", to: "Post", inverse: "author", toMany: true)
            }
            EntityDescription("Post") {
                AttributeDescription("title", .string)
                AttributeDescription("body", .string)
                AttributeDescription("tagCount", .integer64, derivationExpression: "tags.@count")
                AttributeDescription("searchTitle", .string, derivationExpression: "canonical:(title)")
                AttributeDescription("lowerTitle", .string, derivationExpression: "lowercase:(title)")
                AttributeDescription("authorName", .string, derivationExpression: "author.name")
                AttributeDescription("length", .integer32, derivationExpression: "body.length")
                AttributeDescription("modifiedAt", .date, derivationExpression: "now()")
                RelationshipDescription("author", to: "Person", inverse: "posts")
                RelationshipDescription("tags", to: "Tag", inverse: "posts", toMany: true)
            }
            EntityDescription("Tag") {
                AttributeDescription("name", .string)
                RelationshipDescription("posts", to: "Post", inverse: "tags", toMany: true)
            }
        }
    }

    @Test("each kind of derivation is computed on save, stored, and recomputed when what it reads changes")
    func computedOnSave() throws {
        let stack = try TestStack(model: try Self.model())
        let context = stack.newContext()
        let (postID, personID) = try context.performAndWait { () throws in
            let ada = try context.insert("Person", ["name": "Ada"])
            let post = try context.insert("Post", ["title": "Café Élan", "body": "hello world"])
            post.setValue(ada, forKey: "author")
            for name in ["a", "b"] { post.mutableSetValue(forKey: "tags").add(try context.insert("Tag", ["name": name])) }
            try context.save()
            return (post.objectID, ada.objectID)
        }
        // Read back through another coordinator: the values were stored.
        let reader = try stack.reopenedContext()
        let first = try reader.performAndWait { () throws -> Date in
            let post = try reader.existingObject(with: postID)
            #expect(post.value(forKey: "tagCount") as? Int64 == 2)
            #expect(post.value(forKey: "searchTitle") as? String == "cafe elan")
            #expect(post.value(forKey: "lowerTitle") as? String == "café élan")
            #expect(post.value(forKey: "authorName") as? String == "Ada")
            #expect(post.value(forKey: "length") as? Int32 == 11)
            return try #require(post.value(forKey: "modifiedAt") as? Date)
        }
        // The author is renamed and a tag removed; the post itself is not edited by the app.
        try context.performAndWait { () throws in
            try context.existingObject(with: personID).setValue("Grace", forKey: "name")
            let tag = try #require(try context.all("Tag", sortedBy: "name").first)
            context.delete(tag)
            try context.save()
        }
        let later = try stack.reopenedContext()
        try later.performAndWait { () throws in
            let post = try later.existingObject(with: postID)
            #expect(post.value(forKey: "authorName") as? String == "Grace")
            #expect(post.value(forKey: "tagCount") as? Int64 == 1)
            let modified = try #require(post.value(forKey: "modifiedAt") as? Date)
            #expect(modified >= first)
            // Stored, so SQL predicates and sorts see them.
            var request = FetchRequest<ManagedObject>(entityName: "Post")
            request.predicate = try QueryPredicate(format: "tagCount == 1 AND searchTitle == 'cafe elan' AND canonical:(title) == 'cafe elan'")
            #expect(try later.fetch(request).count == 1)
        }
    }

    @Test("a derivation that is not an expression makes the model invalid, naming the attribute")
    func badDerivation() {
        #expect {
            _ = try ManagedObjectModel {
                EntityDescription("Post") { AttributeDescription("n", .integer64, derivationExpression: "tags.@count +") }
            }
        } throws: { error in
            guard let error = error as? NimbusError, error.code == .invalidModel else { return false }
            return error.message.contains("Post.n")
        }
    }

    @Test("an Xcode model's derived attribute keeps its derivation and is computed")
    func xcodeDerivation() throws {
        let model = try ManagedObjectModel(contentsOf: XcodeModelFixtures.json)
        let wordCount = try #require(try model.entity(named: "Post").property(named: "wordCount")?.attribute)
        #expect(wordCount.derivationExpression == "body.length")
    }
}
