import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// Predicate strings from real apps' code: bitwise flags, URI prefixes, transformables
/// compared with constants. Each runs in SQL (a fetch) and in memory, with the same answer.
@Suite("Real apps' predicates")
struct RealAppPredicateTests {
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Message") {
                AttributeDescription("subject", .string)
                AttributeDescription("flags", .integer64, isOptional: false, defaultValue: 0)
                AttributeDescription("link", .uri)
                AttributeDescription("label", .transformable, valueTransformerName: "MessageLabelTransformer")
            }
        }
    }

    /// (subject, flags, link, label)
    static let rows: [(String, Int64, String?, String?)] = [
        ("seen", 1, "https://example.com/a", "inbox"),
        ("flagged", 4, "https://example.com/b", "work"),
        ("seen+flagged", 5, "mailto:ann@example.com", nil),
        ("none", 0, nil, "inbox"),
    ]

    static let cases: [(String, [String])] = [
        ("(flags & 4) != 0", ["flagged", "seen+flagged"]),
        ("flags & 1 == 1", ["seen", "seen+flagged"]),
        ("(flags | 2) == 7", ["seen+flagged"]),
        ("(flags ^ 5) == 0", ["seen+flagged"]),
        ("(~flags & 1) == 1 AND flags != 0", ["flagged"]),
        ("flags & 1 | 4 == 5", ["seen", "seen+flagged"]),
        ("link BEGINSWITH 'https:'", ["flagged", "seen"]),
        ("link CONTAINS[c] 'EXAMPLE.COM/B'", ["flagged"]),
        ("link ENDSWITH '.com'", ["seen+flagged"]),
    ]

    @Test("bitwise operators and string operators on URIs: the same rows in SQL and in memory", arguments: cases)
    func sqlAndMemoryAgree(_ format: String, _ expected: [String]) throws {
        ValueTransformers.register(String.self, as: "MessageLabelTransformer")
        let folder = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: folder.file("Mail.sqlite")))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            for (subject, flags, link, label) in Self.rows {
                var values: [String: Any] = ["subject": subject, "flags": flags]
                values["link"] = link.flatMap(URL.init(string:))
                values["label"] = label
                _ = try context.insert("Message", values)
            }
            try context.save()
            let predicate = try QueryPredicate(format: format)
            var request = FetchRequest<ManagedObject>(entityName: "Message")
            request.predicate = predicate
            let fetched = try context.fetch(request).compactMap { $0.value(forKey: "subject") as? String }.sorted()
            #expect(fetched == expected, "SQL")
            let all = try context.all("Message")
            let evaluated = try all.filter { try predicate.evaluate(with: $0) }.compactMap { $0.value(forKey: "subject") as? String }.sorted()
            #expect(evaluated == expected, "memory")
        }
    }

    @Test("a transformable compared with a constant matches the stored encoding; the formatter writes bitwise operators back")
    func transformableAndFormat() throws {
        ValueTransformers.register(String.self, as: "MessageLabelTransformer")
        let folder = try TemporaryDirectory()
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: folder.file("Mail.sqlite")))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { () throws in
            for (subject, flags, _, label) in Self.rows {
                var values: [String: Any] = ["subject": subject, "flags": flags]
                values["label"] = label
                _ = try context.insert("Message", values)
            }
            try context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Message")
            request.predicate = try QueryPredicate(format: "label == %@", "inbox")
            #expect(try context.fetch(request).compactMap { $0.value(forKey: "subject") as? String }.sorted() == ["none", "seen"])
            request.predicate = try QueryPredicate(format: "label != nil AND label != 'inbox'")
            #expect(try context.fetch(request).compactMap { $0.value(forKey: "subject") as? String } == ["flagged"])
            // In memory the registered type's value is compared: the same answer.
            let inbox = try QueryPredicate(format: "label == 'inbox'")
            #expect(try context.all("Message").filter { try inbox.evaluate(with: $0) }.compactMap { $0.value(forKey: "subject") as? String }.sorted() == ["none", "seen"])
        }
        #expect(try QueryPredicate(format: "(flags & 4) != 0").description == "(flags & 4) != 0")
        #expect(try QueryPredicate(format: "flags | 1 ^ 2 == 3").description == "(flags | (1 ^ 2)) == 3")
        #expect(throws: NimbusError.self) { try QueryPredicate(format: "subject & 1 == 1").evaluate(with: ["subject": "x"]) }
    }
}
