import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// Issue 28, item 3: fetched properties and fetch request templates of Xcode models are
/// read and work as in Core Data.
@Suite("Fetched properties and fetch request templates")
struct FetchedPropertyTests {
    @Test("an Xcode model's fetched property fetches with $FETCH_SOURCE, and its template binds variables")
    func fromXcode() throws {
        let model = try ManagedObjectModel(contentsOf: XcodeModelFixtures.package)
        let person = try model.entity(named: "Person")
        #expect(person.fetchedProperties == [FetchedPropertyDescription(name: "recentPosts", entityName: "Post",
                                                                        predicateFormat: "author == $FETCH_SOURCE AND isDraft == NO")])
        #expect(model.fetchRequestTemplates["draftPosts"]?.entityName == "Post")
        // Kept through the JSON a store caches its model in.
        let decoded = try JSONDecoder().decode(ManagedObjectModel.self, from: JSONEncoder().encode(model))
        #expect(decoded.fetchRequestTemplates == model.fetchRequestTemplates)
        #expect(try decoded.entity(named: "Person").fetchedProperties == person.fetchedProperties)

        let stack = try TestStack(model: model)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let ada = try context.insert("Person", ["name": "Ada", "email": "ada@example.com"])
            let grace = try context.insert("Person", ["name": "Grace", "email": "grace@example.com"])
            for (title, author, draft) in [("a", ada, false), ("b", ada, true), ("c", grace, false)] {
                let post = try context.insert("Post", ["title": title, "isDraft": draft, "identifier": UUID()])
                post.setValue(author, forKey: "author")
            }
            try context.save()
            let recent = try #require(ada.value(forKey: "recentPosts") as? [ManagedObject])
            #expect(recent.compactMap { $0.value(forKey: "title") as? String } == ["a"])
            #expect((try grace.validatedValue(forKey: "recentPosts") as? [ManagedObject])?.count == 1)

            let drafts = try #require(model.fetchRequestTemplate(forName: "draftPosts"))
            #expect(try context.fetch(drafts).compactMap { $0.value(forKey: "title") as? String } == ["b"])
            #expect(try model.fetchRequestFromTemplate(withName: "none", substitutionVariables: [:]) == nil)
        }
    }

    @Test("templates with variables, built in code; a template on an unknown entity makes the model invalid")
    func inCode() throws {
        let entities = [EntityDescription("Tag", attributes: [AttributeDescription("name", .string)])]
        let model = try ManagedObjectModel(entities: entities, fetchRequestTemplates: [
            "named": FetchRequestTemplate(name: "named", entityName: "Tag", predicateFormat: "name == $NAME"),
        ])
        let stack = try TestStack(model: model)
        let context = stack.newContext()
        try context.performAndWait { () throws in
            for name in ["swift", "linux"] { _ = try context.insert("Tag", ["name": name]) }
            try context.save()
            let request = try #require(try model.fetchRequestFromTemplate(withName: "named", substitutionVariables: ["NAME": "linux"]))
            #expect(try context.fetch(request).map { $0.value(forKey: "name") as? String } == ["linux"])
        }
        #expect {
            _ = try ManagedObjectModel(entities: entities, fetchRequestTemplates: [
                "bad": FetchRequestTemplate(name: "bad", entityName: "Nope"),
            ])
        } throws: { ($0 as? NimbusError)?.code == .invalidModel && "\($0)".contains("Nope") }
    }
}
