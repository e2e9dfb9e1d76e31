import Foundation
import Testing
@testable import Nimbus

/// One meaning, two engines: a generated predicate fetched from SQLite selects exactly the
/// objects the in-memory evaluator accepts.
@Suite("Predicate SQL and in-memory equivalence")
struct PredicateEquivalenceTests {
    static let strings: [String?] = [
        nil, "", "a", "A", "abc", "ABC", "Ábc", "abç", "\u{E9}", "e\u{301}", "É", "ß", "straße", "STRASSE",
        "x%y", "x_y", "100%", "a*b", "a?b", "Zoë", "zoe", "ZOE", "İstanbul", "ıi", "日本", "🙂x", "b", "ab", " a",
    ]
    static let likePatterns = ["a*", "*b*", "?b?", "*", "", "x%y", "a\\*b", "*ë", "?", "ab*c", "*e"]
    static let regexes = ["a.*", ".*[bB].*", "", "[a-z]+", ".", "(?i)zoe", "\\w+%\\w"]
    static let numbers: [PropertyValue] = [.integer(-1), .integer(0), .integer(1), .integer(2), .double(2.5), .integer(30),
                                           .integer(41), .double(100), .double(0.5), .decimal(Decimal(string: "1.5")!)]
    static let dates = (0..<6).map { Date(timeIntervalSinceReferenceDate: Double($0) * 86_400 * 1000 + 0.25) }
    static let uuids = (0..<4).map { _ in UUID() }

    struct World {
        var people: [ManagedObject]
        var companies: [ManagedObject]
        var tags: [ManagedObject]
    }

    /// Saves a generated population and returns it.
    static func populate(_ context: ManagedObjectContext, _ rng: inout SeededGenerator) throws -> World {
        func pick<T>(_ items: [T]) -> T { items[Int(rng.next() % UInt64(items.count))] }
        func chance(_ percent: UInt64) -> Bool { rng.next() % 100 < percent }
        let companies = try (0..<4).map { _ in
            let company = try context.insertNewObject(forEntityName: "Company")
            try company.setValidatedValue(pick(strings), forKey: "name")
            return company
        }
        let tags = try (0..<6).map { _ in
            let tag = try context.insertNewObject(forEntityName: "Tag")
            try tag.setValidatedValue(pick(strings), forKey: "name")
            return tag
        }
        var people: [ManagedObject] = []
        for _ in 0..<45 {
            let person = try context.insertNewObject(forEntityName: "Person")
            try person.setValidatedValue(pick(strings), forKey: "name")
            try person.setValidatedValue(pick(strings), forKey: "nickname")
            try person.setValidatedValue(chance(15) ? nil : Int(rng.next() % 45) - 2, forKey: "age")
            try person.setValidatedValue(chance(15) ? nil : Double(rng.next() % 400) / 4 - 2, forKey: "score")
            try person.setValidatedValue(chance(20) ? nil : Decimal(Int(rng.next() % 40)) / 4, forKey: "balance")
            try person.setValidatedValue(chance(20) ? nil : chance(50), forKey: "isActive")
            try person.setValidatedValue(chance(15) ? nil : pick(dates), forKey: "birthday")
            try person.setValidatedValue(chance(25) ? nil : pick(uuids), forKey: "uid")
            try person.setValidatedValue(chance(25) ? nil : pick(companies), forKey: "employer")
            var pets: [ManagedObject] = []
            for _ in 0..<Int(rng.next() % 4) {
                let pet = try context.insertNewObject(forEntityName: "Pet")
                try pet.setValidatedValue(pick(strings), forKey: "name")
                try pet.setValidatedValue(chance(10) ? nil : Double(rng.next() % 40) / 2, forKey: "weight")
                pets.append(pet)
            }
            try person.setValidatedValue(pets, forKey: "pets")
            try person.setValidatedValue(Set((0..<Int(rng.next() % 4)).map { _ in pick(tags) }), forKey: "tags")
            people.append(person)
        }
        try context.save()
        return World(people: people, companies: companies, tags: tags)
    }

    @Test("generated predicates select the same objects in SQL and in memory", arguments: [0x5EED_2026, 7, 1_234_567] as [UInt64])
    @MainActor
    func equivalence(seed: UInt64) throws {
        let (container, directory) = try PredicateTestSupport.container()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = container.viewContext
        var rng = SeededGenerator(seed: seed)
        let world = try Self.populate(context, &rng)
        var generator = PredicateGenerator(rng: rng, world: world)
        var checked = 0, nonTrivial = 0
        for _ in 0..<700 {
            let predicate = generator.predicate(depth: 0)
            let printed = predicate.predicateFormat
            if !printed.contains("NSManagedObjectID") {
                #expect(try QueryPredicate(format: printed) == predicate, "printed as \(printed)")
            }
            var request = FetchRequest<ManagedObject>(entityName: "Person")
            request.predicate = predicate
            let fetched: Set<ManagedObjectID>
            do {
                fetched = Set(try context.fetch(request).map(\.objectID))
            } catch {
                Issue.record("SQL fetch failed for \(predicate): \(error)")
                continue
            }
            var expected: Set<ManagedObjectID> = []
            for person in world.people where try predicate.evaluate(with: person) { expected.insert(person.objectID) }
            let differences = fetched.symmetricDifference(expected).map(\.primaryKey).sorted()
            #expect(differences.isEmpty, "\(predicate): SQL \(fetched.count) objects, memory \(expected.count), differing rows \(differences)")
            checked += 1
            if !expected.isEmpty && expected.count < world.people.count { nonTrivial += 1 }
        }
        #expect(checked == 700)
        // The generator must produce selective predicates, not only all-or-nothing ones.
        #expect(nonTrivial > 250, "only \(nonTrivial) selective predicates")
    }
}

extension PredicateEquivalenceTests {
    @Test("SQL ORDER BY and the in-memory comparator order objects identically")
    @MainActor
    func sorting() throws {
        let (container, directory) = try PredicateTestSupport.container()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = container.viewContext
        var rng = SeededGenerator(seed: 99)
        let world = try Self.populate(context, &rng)
        let keys = ["name", "nickname", "age", "score", "balance", "isActive", "birthday", "uid", "employer.name", "employer"]
        let comparisons: [FetchSortDescriptor.Comparison] = [.binary, .caseInsensitive, .localizedStandard]
        for _ in 0..<150 {
            let sorts = (0..<(1 + Int(rng.next() % 3))).map { _ in
                FetchSortDescriptor(keys[Int(rng.next() % UInt64(keys.count))], ascending: rng.next() % 2 == 0,
                                    comparison: comparisons[Int(rng.next() % 3)])
            }
            var request = FetchRequest<ManagedObject>(entityName: "Person")
            request.sortDescriptors = sorts
            let fetched = try context.fetch(request)
            #expect(fetched.count == world.people.count)
            for (a, b) in zip(fetched, fetched.dropFirst()) {
                #expect(!FetchSortDescriptor.areInIncreasingOrder(b, a, by: sorts),
                        "\(sorts.map { "\($0.keyPath) \($0.comparison) \($0.ascending)" }): \(a) before \(b)")
            }
            let inMemory = world.people.sorted { FetchSortDescriptor.areInIncreasingOrder($0, $1, by: sorts) }
            let key = { (object: ManagedObject) in sorts.map { "\($0.sortValue(object))" } }
            #expect(fetched.map(key) == inMemory.map(key))
        }
    }

    @Test("unsaved changes are judged in memory with the SQL's answer for saved ones")
    @MainActor
    func pendingChanges() throws {
        let (container, directory) = try PredicateTestSupport.container()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = container.viewContext
        var rng = SeededGenerator(seed: 5)
        let world = try Self.populate(context, &rng)
        // Change some saved objects and insert new ones without saving.
        for person in world.people.prefix(10) { person.setValue("Zoë", forKey: "name") }
        for _ in 0..<5 {
            let person = try context.insertNewObject(forEntityName: "Person")
            person.setValue("zoe", forKey: "name")
            person.setValue(7, forKey: "age")
        }
        var generator = PredicateGenerator(rng: rng, world: world)
        for _ in 0..<200 {
            let predicate = generator.predicate(depth: 1)
            var request = FetchRequest<ManagedObject>(entityName: "Person")
            request.predicate = predicate
            let fetched = Set(try context.fetch(request).map(ObjectIdentifier.init))
            let all = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            let expected = Set(try all.filter { try predicate.evaluate(with: $0) }.map(ObjectIdentifier.init))
            #expect(fetched == expected, "\(predicate)")
        }
    }
}

/// Generates well-typed predicates over the test model's Person entity.
struct PredicateGenerator {
    var rng: SeededGenerator
    let world: PredicateEquivalenceTests.World
    typealias T = PredicateEquivalenceTests
    typealias C = QueryPredicate.Comparison

    mutating func pick<E>(_ items: [E]) -> E { items[Int(rng.next() % UInt64(items.count))] }
    mutating func chance(_ percent: UInt64) -> Bool { rng.next() % 100 < percent }
    func key(_ path: String) -> QueryExpression { .keyPath(path.split(separator: ".").map(String.init)) }

    mutating func options() -> C.Options {
        pick([[], [], [.caseInsensitive], [.diacriticInsensitive], [.caseInsensitive, .diacriticInsensitive]])
    }

    mutating func string() -> QueryExpression { .constant(pick(T.strings).map(PropertyValue.string) ?? .null) }
    mutating func nonNilString() -> QueryExpression { .constant(.string(pick(T.strings.compactMap { $0 }))) }
    mutating func number() -> QueryExpression { .constant(pick(T.numbers)) }

    mutating func predicate(depth: Int) -> QueryPredicate {
        let roll = rng.next() % 100
        if depth < 3 && roll < 30 {
            let parts = (0..<(2 + Int(rng.next() % 2))).map { _ in predicate(depth: depth + 1) }
            return chance(50) ? .and(parts) : .or(parts)
        }
        if depth < 3 && roll < 40 { return .not(predicate(depth: depth + 1)) }
        if roll < 42 { return chance(50) ? .truePredicate : .falsePredicate }
        return leaf()
    }

    mutating func stringTest(_ left: QueryExpression, modifier: C.Modifier = .direct) -> QueryPredicate {
        let op = pick([C.Operator.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual,
                       .beginsWith, .endsWith, .contains, .like, .matches, .in])
        let right: QueryExpression
        switch op {
        case .equal, .notEqual: right = chance(15) ? key(pick(["name", "nickname"])) : string()
        case .like: right = .constant(.string(pick(T.likePatterns)))
        case .matches: right = .constant(.string(pick(T.regexes)))
        case .in: right = .aggregate((0..<Int(rng.next() % 4)).map { _ in string() })
        case .lessThan, .greaterThan: right = chance(20) ? key(pick(["name", "nickname"])) : nonNilString()
        default: right = nonNilString()
        }
        return .comparison(C(left, op, right, modifier: modifier, options: options()))
    }

    mutating func numberTest(_ left: QueryExpression, modifier: C.Modifier = .direct) -> QueryPredicate {
        let op = pick([C.Operator.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .between, .in])
        let right: QueryExpression
        switch op {
        case .between: right = .aggregate([number(), number()])
        case .in: right = .aggregate((0..<Int(rng.next() % 4)).map { _ in chance(15) ? .constant(.null) : number() })
        case .equal, .notEqual: right = chance(15) ? .constant(.null) : number()
        default: right = chance(10) ? key(pick(["age", "score", "balance"])) : number()
        }
        return .comparison(C(left, op, right, modifier: modifier))
    }

    mutating func leaf() -> QueryPredicate {
        switch rng.next() % 21 {
        case 0, 1: return stringTest(key(pick(["name", "nickname", "employer.name"])))
        case 2: return stringTest(key(pick(["tags.name", "pets.name"])), modifier: pick([.any, .all]))
        case 3: return .not(stringTest(key(pick(["tags.name", "pets.name"])), modifier: .any))
        case 4, 5: return numberTest(key(pick(["age", "score", "balance", "pets.@count", "tags.@count", "pets.@sum.weight",
                                                "pets.@avg.weight", "pets.@max.weight", "employer.employees.@count"])))
        case 6: return numberTest(key("pets.weight"), modifier: pick([.any, .all]))
        case 7:
            let value: PropertyValue = pick([.bool(true), .bool(false), .null, .integer(1)])
            return .comparison(C(key("isActive"), pick([.equal, .notEqual]), .constant(value)))
        case 8:
            let op = pick([C.Operator.equal, .notEqual, .lessThan, .greaterThanOrEqual, .between])
            let date = { (g: inout PredicateGenerator) -> QueryExpression in .constant(.date(g.pick(T.dates))) }
            let right: QueryExpression = op == .between ? .aggregate([date(&self), date(&self)]) : (chance(10) ? .constant(.null) : date(&self))
            return .comparison(C(key("birthday"), op, right))
        case 9:
            if chance(50) {
                return .comparison(C(key("uid"), pick([.equal, .notEqual]), .constant(chance(20) ? .null : .uuid(pick(T.uuids)))))
            }
            return .comparison(C(key("uid"), .in, .aggregate(T.uuids.prefix(2).map { .constant(.uuid($0)) })))
        case 10:
            switch rng.next() % 5 {
            case 0: return .comparison(C(key("employer"), pick([.equal, .notEqual]), .constant(chance(20) ? .null : .object(pick(world.companies).objectID))))
            case 1: return .comparison(C(key("tags"), .equal, .constant(.object(pick(world.tags).objectID)), modifier: .any))
            case 2: return .comparison(C(.constant(.object(pick(world.tags).objectID)), .in, key("tags")))
            case 3: return .comparison(C(key("tags"), .contains, .constant(.object(pick(world.tags).objectID))))
            default:
                let some = (0..<5).map { _ in QueryExpression.constant(.object(pick(world.people).objectID)) }
                return .comparison(C(.evaluatedObject, .in, .aggregate(some)))
            }
        case 11:
            let inner: QueryPredicate = switch rng.next() % 3 {
            case 0: .comparison(C(.variableKeyPath("p", ["weight"]), .greaterThan, number()))
            case 1: .comparison(C(.variableKeyPath("p", ["name"]), .beginsWith, nonNilString(), options: options()))
            default: .comparison(C(.variableKeyPath("p", ["owner", "age"]), .lessThan, number()))
            }
            let count = QueryExpression.function("count:", [.subquery(collection: key("pets"), variable: "p", predicate: inner)])
            return .comparison(C(count, pick([.greaterThan, .equal, .lessThan]), .constant(.integer(Int64(rng.next() % 3)))))
        case 12:
            let function = pick(["lowercase:", "uppercase:"])
            return .comparison(C(.function(function, [key("name")]), pick([.equal, .beginsWith, .lessThan]), nonNilString()))
        case 13:
            return .comparison(C(.function("length:", [key(pick(["name", "nickname"]))]), pick([.greaterThan, .equal]), .constant(.integer(Int64(rng.next() % 4)))))
        case 14:
            let arithmetic = pick(["add:to:", "from:subtract:", "multiply:by:", "divide:by:", "modulus:by:"])
            return .comparison(C(.function(arithmetic, [key(pick(["age", "score"])), number()]), pick([.lessThan, .equal, .greaterThanOrEqual]), number()))
        case 15:
            return .comparison(C(key(pick(["name", "nickname"])), .in, .constant(.string(pick(["abcdef", "straße ABC", "Zoë and zoe", ""])))))
        case 16:
            return chance(50) ? .comparison(C(nonNilString(), .in, key(pick(["tags.name", "pets.name"])), options: options()))
                : stringTest(key("pets.owner.name"), modifier: .any)
        case 17:
            let ternary = QueryExpression.conditional(.comparison(C(key("isActive"), .equal, .constant(.bool(true)))), key("age"), key("score"))
            return .comparison(C(ternary, pick([.greaterThan, .lessThanOrEqual, .equal]), number()))
        case 18:
            return .comparison(C(key("name"), pick([.equal, .notEqual, .lessThan, .beginsWith, .contains]), key(pick(["nickname", "employer.name"])), options: options()))
        case 19:
            let inner = QueryPredicate.comparison(C(.variableKeyPath("p", ["owner", "tags", "name"]), .beginsWith, nonNilString(), modifier: .any, options: options()))
            let count = QueryExpression.function("count:", [.subquery(collection: key("pets"), variable: "p", predicate: chance(50) ? inner : .not(inner))])
            return .comparison(C(count, pick([.greaterThan, .equal]), .constant(.integer(Int64(rng.next() % 2)))))
        default:
            if chance(50) { return .comparison(C(.evaluatedObject, pick([.equal, .notEqual]), .constant(.object(pick(world.people).objectID)))) }
            return stringTest(key("employer.employees.name"), modifier: pick([.direct, .any, .all]))
        }
    }
}
