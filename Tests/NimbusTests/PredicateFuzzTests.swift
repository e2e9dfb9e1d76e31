import Foundation
import Testing
@testable import Nimbus

/// The parser never crashes or hangs: random strings and random mutations of valid
/// predicates either parse or throw `invalidPredicate` with a column inside the input.
@Suite("Predicate parser fuzzing")
struct PredicateFuzzTests {
    static let seeds: [String] = [
        "ANY employees.firstName like 'Matthew'",
        "SUBQUERY(employees, $e, $e.salary > 1000).@count > 0",
        "name BEGINSWITH[cd] 'a' AND (age > 3 OR NOT score <= 2.5)",
        "birthday BETWEEN {CAST(0, 'NSDate'), CAST(1e6, 'NSDate')}",
        "#in IN {1, 2, nil} || flag == YES && x =< -3",
        "items.@sum.price * 2 + lowercase:(name) != \"x\\n\"",
        "TERNARY(a > 1, b, c) == modulus:by:(d, 2)",
        "ALL tags.name MATCHES[c] '[a-z]+' AND NONE pets.weight > 0x10",
    ]
    static let alphabet = Array("abcXYZ019 .,_@$#%'\"\\(){}[]=!<>&|+-*/:eE\u{E9}\u{301}🙂\n\t")
    static let fragments = ["AND", "OR", "NOT", "ANY", "ALL", "SUBQUERY(", "$x", "%@", "%K", "%d", "'", "\"", "(", ")", "{", "}",
                            "[cd]", ".@count", "==", "BETWEEN", "IN", "CAST(", "FUNCTION(", "TERNARY(", "nil", "-", "**", "#", "@"]

    /// Parses, checking the outcome is a predicate or a well-formed parse error.
    static func check(_ text: String) {
        do {
            let predicate = try QueryPredicate(format: text, "value", "key", 1, 2.5, ["a"])
            _ = predicate.predicateFormat
        } catch let error as NimbusError {
            #expect(error.code == .invalidPredicate || error.code == .typeMismatch, "\(text): \(error)")
            if error.code == .invalidPredicate, let column = error.column {
                #expect(column >= 1 && column <= text.unicodeScalars.count + 1, "\(text): column \(column)")
            }
        } catch {
            Issue.record("\(text): unexpected error \(error)")
        }
    }

    @Test("random strings parse or fail with a column, in bounded time")
    func randomStrings() {
        var rng = SeededGenerator(seed: 42)
        let started = ContinuousClock.now
        for _ in 0..<3000 {
            let length = Int(rng.next() % 40)
            var text = ""
            for _ in 0..<length {
                if rng.next() % 4 == 0 {
                    text += Self.fragments[Int(rng.next() % UInt64(Self.fragments.count))]
                } else {
                    text.append(Self.alphabet[Int(rng.next() % UInt64(Self.alphabet.count))])
                }
            }
            Self.check(text)
        }
        // Not a benchmark: a guard against exponential backtracking (3000 inputs take milliseconds).
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    @Test("mutations of valid predicates parse or fail with a column", arguments: seeds)
    func mutations(_ seed: String) {
        var rng = SeededGenerator(seed: UInt64(seed.utf8.count))
        let scalars = Array(seed.unicodeScalars)
        for _ in 0..<500 {
            var mutated = scalars
            for _ in 0..<(1 + Int(rng.next() % 3)) {
                let position = mutated.isEmpty ? 0 : Int(rng.next() % UInt64(mutated.count))
                switch rng.next() % 4 {
                case 0 where !mutated.isEmpty: mutated.remove(at: position)
                case 1: mutated.insert(contentsOf: Self.fragments[Int(rng.next() % UInt64(Self.fragments.count))].unicodeScalars, at: position)
                case 2 where !mutated.isEmpty: mutated[position] = Self.alphabet[Int(rng.next() % UInt64(Self.alphabet.count))].unicodeScalars.first!
                default: mutated = Array(mutated.prefix(position))
                }
            }
            Self.check(String(String.UnicodeScalarView(mutated)))
        }
    }

    @Test("deep nesting parses up to a limit, then fails with an error instead of exhausting the stack")
    func deepNesting() throws {
        let nested = String(repeating: "(", count: 40) + "a == 1" + String(repeating: ")", count: 40)
        #expect(try QueryPredicate(format: nested) == QueryPredicate(format: "a == 1"))
        for text in [String(repeating: "(", count: 5000) + "a == 1" + String(repeating: ")", count: 5000),
                     String(repeating: "NOT ", count: 5000) + "a == 1",
                     "a == " + String(repeating: "-", count: 5000) + "1",
                     String(repeating: "(", count: 300)] {
            #expect(throws: NimbusError.self) { try QueryPredicate(format: text) }
            Self.check(text)
        }
    }

    @Test("input built to make the parser backtrack fails fast")
    func backtracking() {
        let started = ContinuousClock.now
        for unit in ["(TERNARY(", "(SUBQUERY(x, $y, ", "((", "(a + (", "(NOT ("] {
            Self.check(String(repeating: unit, count: 40) + "a == 1")
        }
        #expect(ContinuousClock.now - started < .seconds(60))
    }
}

/// Mutated predicates that parse also compile: to SQL that SQLite accepts, or to a typed
/// error; and when both engines answer, they agree.
@Suite("Predicate compiler fuzzing")
struct PredicateCompilerFuzzTests {
    static let seeds = [
        "name BEGINSWITH[cd] 'a' AND (age > 3 OR NOT score <= 2.5)",
        "ANY pets.name LIKE[c] 'R*' OR ALL tags.name != nil",
        "SUBQUERY(pets, $p, $p.weight > 2 AND $p.owner.age < 40).@count > 0",
        "employer.employees.@count >= 1 AND pets.@sum.weight < 10.5",
        "tags.@count == 0 OR birthday < CAST(86400, 'NSDate') OR uid == nil",
        "nickname IN {'a', 'b', nil} AND isActive == YES AND balance BETWEEN {1, 5}",
        "lowercase:(name) CONTAINS 'b' OR length:(nickname) > 2 OR age * 2 + 1 > score",
        "NONE pets.weight > 3 AND TERNARY(isActive == YES, age, score) > 1 AND name MATCHES '[a-z]+'",
    ]
    static let fragments = ["AND", "OR", "NOT", "ANY", "ALL", "name", "age", "pets", "tags", "employer", ".", ".@count", ".@sum",
                            "==", "<", "IN", "{", "}", "(", ")", "'x'", "3", "nil", "[c]", "$p", "weight", "SELF", "%@", "+"]

    @Test("mutated predicates compile to valid SQL or fail with a typed error", arguments: seeds)
    @MainActor
    func mutatedPredicates(_ seed: String) throws {
        let (container, directory) = try PredicateTestSupport.container()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = container.viewContext
        var rng = SeededGenerator(seed: UInt64(seed.utf8.count) &* 31)
        let world = try PredicateEquivalenceTests.populate(context, &rng)
        let words = seed.split(separator: " ").map(String.init)
        var parsed = 0
        for _ in 0..<1500 {
            var mutated = words
            for _ in 0..<(1 + Int(rng.next() % 2)) {
                let position = Int(rng.next() % UInt64(mutated.count))
                let fragment = Self.fragments[Int(rng.next() % UInt64(Self.fragments.count))]
                switch rng.next() % 3 {
                case 0: mutated[position] = fragment
                case 1: mutated.insert(fragment, at: position)
                default: if mutated.count > 1 { mutated.remove(at: position) }
                }
            }
            let text = mutated.joined(separator: " ")
            guard let predicate = try? QueryPredicate(format: text, "a") else { continue }
            parsed += 1
            var request = FetchRequest<ManagedObject>(entityName: "Person")
            request.predicate = predicate
            let fetched: Set<ManagedObjectID>
            do {
                fetched = Set(try context.fetch(request).map(\.objectID))
            } catch let error as NimbusError {
                let typed: [NimbusError.Code] = [.unknownProperty, .typeMismatch, .invalidPredicate, .unsupported]
                #expect(typed.contains(error.code), "\(text): \(error.code) \(error)")
                continue
            }
            // SQL accepted the predicate, so memory must too: an error here is a disagreement.
            let expected: Set<ManagedObjectID>
            do {
                expected = Set(try world.people.filter { try predicate.evaluate(with: $0) }.map(\.objectID))
            } catch {
                Issue.record("\(text): SQL fetched \(fetched.count) rows, memory threw \(error)")
                continue
            }
            #expect(fetched == expected, "\(text)")
        }
        #expect(parsed > 60, "only \(parsed) mutations parsed")
    }
}
