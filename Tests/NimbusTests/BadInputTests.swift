import Foundation
import Testing
import Nimbus
import NimbusTesting

@Suite("Bad input")
struct BadInputTests {
    #if DEBUG
    @Test("an unknown key or a value of the wrong type to setValue/value(forKey:) stops a debug build with a message", arguments: [
        ("unknown-key-set", "Post has no property titel"),
        ("unknown-key-read", "Post has no property \"titel\""),
        ("wrong-type-set", "setValue(_:forKey: \"title\")"),
    ])
    func keyValueMisuse(scenario: String, message: String) throws {
        let result = try QueueConfinementTests.run(scenario)
        #expect(result.reason == .uncaughtSignal, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("misusing") && !result.stdout.contains("not stopped"))
        #expect(result.stderr.contains(message), "stderr: \(result.stderr)")
    }
    #endif

    @Test("setValidatedValue and validatedValue throw typed errors instead, and change nothing")
    func validatedAccessors() throws {
        let stack = try TestStack()
        let context = stack.newContext()
        try context.performAndWait { () throws in
            let post = try context.insert("Post", ["title": "t"])
            #expect { try post.setValidatedValue("x", forKey: "titel") } throws: { ($0 as? NimbusError)?.code == .unknownProperty }
            #expect { try post.setValidatedValue(42, forKey: "title") } throws: { ($0 as? NimbusError)?.code == .typeMismatch }
            #expect { try post.validatedValue(forKey: "titel") } throws: { ($0 as? NimbusError)?.code == .unknownProperty }
            #expect(post.value(forKey: "title") as? String == "t")
        }
    }

    @Test("an invalid model is refused at load with every problem listed")
    func invalidModel() throws {
        #expect {
            _ = try ManagedObjectModel {
                EntityDescription("A", parent: "B") { AttributeDescription("x", .string) }
                EntityDescription("B", parent: "A") { AttributeDescription("y", .string) }
                EntityDescription("Post") {
                    RelationshipDescription("author", to: "Person", inverse: "writings")
                }
                EntityDescription("Person") { AttributeDescription("name", .string) }
                EntityDescription("person") { AttributeDescription("name", .string) }
            }
        } throws: { error in
            guard let error = error as? NimbusError, error.code == .invalidModel else { return false }
            return error.message.contains("inherits from itself")
                && error.message.contains("names inverse writings")
                && error.message.contains("map to the table ZPERSON")
        }
    }
}
