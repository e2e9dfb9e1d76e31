import Foundation
import Testing
@testable import Nimbus
import NimbusTesting

/// Every predicate's `predicateFormat` parses back to an equal predicate: random
/// predicates over the whole grammar (compounds, every operator, modifiers and options,
/// constants of every type, objects by URI, functions, aggregates, variables, SUBQUERY,
/// TERNARY).
@Suite("Predicate round trip (property)")
struct PredicateRoundTripPropertyTests {
    /// The suite's deterministic generator (``SeededGenerator``), so a failure names its seed.
    struct Generator {
        var base: SeededGenerator
        init(state: UInt64) { base = SeededGenerator(seed: state) }
        mutating func int(_ n: Int) -> Int { Int(base.next() % UInt64(n)) }
        mutating func pick<T>(_ items: [T]) -> T { items[int(items.count)] }
    }

    struct Builder {
        var random: Generator
        let objects: [ManagedObjectID]

        mutating func string() -> String {
            let alphabet: [String] = ["a", "Z", " ", "\"", "'", "\\", "\n", "\t", "é", "ß", "💬", "%", "$", "{", ")", "AND", "\u{1}", "0"]
            return (0..<random.int(6)).map { _ in random.pick(alphabet) }.joined()
        }

        mutating func constant() -> PropertyValue {
            switch random.int(12) {
            case 0: return .null
            case 1: return .integer(random.pick([0, 1, -1, 42, Int64.max, Int64.min + 1, -987_654_321]))
            case 2: return .double(random.pick([0.5, -2.25, 1e-9, 6.02e23, 3.0, -0.0, .infinity, 1.0 / 3.0]))
            case 3: return .bool(random.int(2) == 0)
            case 4: return .date(Date(timeIntervalSinceReferenceDate: random.pick([0, 1.5, -86_400, 757_382_400.125])))
            case 5: return .data(Data((0..<random.int(5)).map { _ in UInt8(random.int(256)) }))
            case 6: return .uuid(UUID(uuidString: random.pick(["6A2F41A3-C54C-4F5B-8C26-1D2E3F405162", "00000000-0000-0000-0000-000000000000"]))!)
            case 7: return .url(URL(string: random.pick(["https://example.com/a?b=c", "file:///tmp/x%20y"]))!)
            case 8: return .decimal(Decimal(string: random.pick(["1.25", "-3", "12345678901234567890.5"]))!)
            case 9: return .object(random.pick(objects))
            default: return .string(string())
            }
        }

        mutating func keyPath() -> QueryExpression {
            .keyPath(random.pick([["title"], ["author", "name"], ["tags"], ["count"], ["in"], ["self_"]]))
        }

        mutating func expression(_ depth: Int) -> QueryExpression {
            guard depth > 0 else { return random.int(2) == 0 ? keyPath() : .constant(constant()) }
            switch random.int(10) {
            case 0, 1: return keyPath()
            case 2, 3: return .constant(constant())
            case 4: return .function(random.pick(["add:to:", "multiply:by:", "from:subtract:"]), [expression(depth - 1), expression(depth - 1)])
            case 5: return .function(random.pick(["uppercase:", "abs:", "length:"]), [expression(depth - 1)])
            case 6: return .aggregate((0..<random.int(3)).map { _ in .constant(constant()) })
            case 7: return random.pick([.variable("v"), .variableKeyPath("v", ["name"]), .evaluatedObject])
            case 8: return .subquery(collection: .keyPath(["tags"]), variable: "t",
                                     predicate: .comparison(.init(.variableKeyPath("t", ["name"]), .equal, .constant(.string(string())))))
            default: return .conditional(predicate(depth - 1), expression(depth - 1), expression(depth - 1))
            }
        }

        mutating func predicate(_ depth: Int) -> QueryPredicate {
            guard depth > 0 else { return comparison(0) }
            switch random.int(8) {
            case 0: return random.pick([.truePredicate, .falsePredicate])
            case 1: return .and((0..<(2 + random.int(2))).map { _ in predicate(depth - 1) })
            case 2: return .or((0..<(2 + random.int(2))).map { _ in predicate(depth - 1) })
            case 3: return .not(predicate(depth - 1))
            default: return comparison(depth)
            }
        }

        mutating func comparison(_ depth: Int) -> QueryPredicate {
            let op = random.pick(QueryPredicate.Comparison.Operator.allCases)
            var right = expression(max(0, depth - 1))
            if op == .between { right = .aggregate([.constant(constant()), .constant(constant())]) }
            let modifier: QueryPredicate.Comparison.Modifier = random.pick([.direct, .direct, .any, .all])
            var options: QueryPredicate.Comparison.Options = []
            if [.equal, .notEqual, .beginsWith, .endsWith, .contains, .like, .matches, .in].contains(op) {
                if random.int(2) == 0 { options.insert(.caseInsensitive) }
                if random.int(3) == 0 { options.insert(.diacriticInsensitive) }
            }
            let left = modifier == .direct ? expression(max(0, depth - 1)) : .keyPath(["tags", "name"])
            return .comparison(.init(left, op, right, modifier: modifier, options: options))
        }
    }

    @Test("random predicates over the grammar print and parse back equal", arguments: 0..<4)
    func roundTrip(_ batch: Int) throws {
        let folder = try TemporaryDirectory()
        let model = try ManagedObjectModel {
            EntityDescription("Person") {
                AttributeDescription("name", .string)
                RelationshipDescription("posts", to: "Post", inverse: "author", toMany: true)
            }
            EntityDescription("Post") {
                AttributeDescription("title", .string)
                RelationshipDescription("author", to: "Person", inverse: "posts")
            }
        }
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(with: PersistentStoreDescription(url: folder.file("Round.sqlite")))
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        let objects = try context.performAndWait { () throws -> [ManagedObjectID] in
            let people = try (0..<2).map { try context.insert("Person", ["name": "p\($0)"]) }
            let post = try context.insert("Post", ["title": "t", "author": people[0]])
            try context.save()
            return (people + [post]).map(\.objectID)
        }
        var failures: [String] = []
        for seed in (batch * 250)..<((batch + 1) * 250) {
            var builder = Builder(random: Generator(state: UInt64(seed)), objects: objects)
            let predicate = builder.predicate(3)
            let printed = predicate.predicateFormat
            do {
                let parsed = try QueryPredicate(format: printed, argumentArray: [], coordinator: coordinator)
                if parsed != predicate { failures.append("seed \(seed): \(printed) parsed as \(parsed.predicateFormat)") }
            } catch {
                failures.append("seed \(seed): \(printed) does not parse: \(error)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) failures; first: \(failures.prefix(3).joined(separator: "\n"))")
    }
}
