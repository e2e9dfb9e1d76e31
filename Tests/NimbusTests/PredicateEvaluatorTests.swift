import Foundation
import Testing
@testable import Nimbus

@Suite("Predicate in-memory evaluation")
struct PredicateEvaluatorTests {
    nonisolated(unsafe) static let person: [String: Any] = [
        "name": "Zoë",
        "nickname": NSNull(),
        "age": 41,
        "score": 2.5,
        "isActive": true,
        "birthday": Date(timeIntervalSinceReferenceDate: 1000),
        "uid": UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
        "employer": ["name": "Acme", "size": 12] as [String: Any],
        "tags": [["name": "swift"], ["name": "Linux"], ["name": "CORE data"]] as [[String: Any]],
        "pets": [["name": "Rex", "weight": 10.5], ["name": "Tom", "weight": 4], ["name": "Ulli"]] as [[String: Any]],
        "scores": [3, 1, 2],
    ]

    static let cases: [(String, Bool)] = [
        ("age == 41", true), ("age = 41.0", true), ("age != 41", false), ("age <> 40", true),
        ("age < 42", true), ("age <= 41", true), ("age > 41", false), ("age >= 41", true), ("age =< 40", false), ("age => 41", true),
        ("age BETWEEN {40, 42}", true), ("age BETWEEN {42, 50}", false), ("score BETWEEN {2.5, 2.5}", true),
        ("isActive == YES", true), ("isActive == 1", true), ("isActive == NO", false), ("isActive == TRUE", true),
        ("nickname == nil", true), ("nickname != nil", false), ("nickname != 'x'", true), ("nickname == 'x'", false),
        ("nickname < 'x'", false), ("nickname > 'x'", false), ("nickname BEGINSWITH 'x'", false), ("NOT nickname BEGINSWITH 'x'", true),
        ("missing == nil", true), ("missing != 5", true),
        ("name == 'Zoë'", true), ("name == 'zoë'", false), ("name ==[c] 'zoë'", true), ("name ==[d] 'Zoe'", true), ("name ==[cd] 'ZOE'", true),
        ("name BEGINSWITH 'Zo'", true), ("name BEGINSWITH ''", false), ("name ENDSWITH 'ë'", true), ("name ENDSWITH[d] 'e'", true),
        ("name CONTAINS 'o'", true), ("name CONTAINS[c] 'O'", true), ("name CONTAINS 'O'", false),
        ("name LIKE 'Z*'", true), ("name LIKE 'Z?ë'", true), ("name LIKE '?'", false), ("name LIKE[cd] 'z*E'", true), ("name LIKE '*'", true),
        ("name MATCHES 'Z.*'", true), ("name MATCHES 'o'", false), ("name MATCHES[c] 'zoë'", true),
        ("name IN {'Ann', 'Zoë'}", true), ("name IN {'Ann'}", false), ("name IN[c] {'ZOË'}", true), ("nickname IN {'a', nil}", true),
        ("name IN 'Zoë and friends'", true), ("'oë' IN name", true),
        ("name < 'a'", true), ("'Z' < 'a'", true), ("name > 'Zo'", true),
        ("birthday > CAST(999, 'NSDate')", true), ("birthday == CAST(1000.0, 'NSDate')", true), ("birthday < CAST(0, 'NSDate')", false),
        ("uid == 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F'", true),
        ("employer.name == 'Acme'", true), ("employer.#size > 10", true), ("employer.missing.deeper == nil", true),
        ("ANY tags.name == 'swift'", true), ("SOME tags.name ==[c] 'linux'", true), ("ALL tags.name MATCHES '[A-Za-z ]+'", true),
        ("ALL tags.name BEGINSWITH 's'", false), ("NONE tags.name == 'go'", true), ("NONE tags.name == 'swift'", false),
        ("tags.name == 'Linux'", true), ("tags.name CONTAINS 'Linux'", true), ("'swift' IN tags.name", true),
        ("tags.@count == 3", true), ("pets.@count > 3", false), ("pets.@sum.weight == 14.5", true), ("pets.@avg.weight == 7.25", true),
        ("pets.@max.weight == 10.5", true), ("pets.@min.weight == 4", true), ("pets.@min.name == 'Rex'", true),
        ("ALL pets.weight > 1", false), ("ANY pets.weight > 10", true),
        ("scores.@sum == 6", true), ("scores.@max == 3", true), ("ANY scores == 2", true), ("scores CONTAINS 1", true),
        ("SUBQUERY(pets, $p, $p.weight > 5).@count == 1", true),
        ("SUBQUERY(pets, $p, $p.name BEGINSWITH[c] 't' OR $p.weight == nil).@count == 2", true),
        ("TRUEPREDICATE", true), ("FALSEPREDICATE", false), ("NOT FALSEPREDICATE AND TRUEPREDICATE", true),
        ("age == 41 AND name == 'x'", false), ("age == 1 OR name == 'Zoë'", true), ("!(age == 1)", true),
        ("age + 1 == 42", true), ("age * 2 == 82", true), ("age / 2 == 20", true), ("age / 2.0 == 20.5", true), ("age - 50 < 0", true),
        ("modulus:by:(age, 10) == 1", true), ("age / 0 == nil", true), ("2 ** 10 == 1024", true), ("abs:(-3) == 3", true),
        ("lowercase:(name) == 'zoë'", true), ("uppercase:(name) == 'ZOË'", true), ("length:(name) == 3", true),
        ("count:(tags) == 3", true), ("sum:({1, 2, 3}) == 6", true), ("average:({1, 2}) == 1.5", true), ("max:({1, 5, 2}) == 5", true),
        ("TERNARY(age > 40, 'old', 'young') == 'old'", true),
        ("{1, 2, 3}.@count == 3", true), ("scores[FIRST] == 3", true), ("scores[LAST] == 2", true), ("scores[1] == 1", true),
        ("scores[SIZE] == 3", true), ("scores[7] == nil", true), ("{4, 5}[LAST] == 5", true), ("now() > CAST(0, 'NSDate')", true),
    ]

    @Test("evaluates NSPredicate semantics over dictionaries", arguments: cases)
    func evaluates(_ format: String, _ expected: Bool) throws {
        #expect(try QueryPredicate(format: format).evaluate(with: Self.person) == expected)
    }

    @Test("substitution variables evaluate once bound, and fail with a clear error when not")
    func variables() throws {
        let template = try QueryPredicate(format: "age > $minimum")
        #expect(try template.withSubstitutionVariables(["minimum": 40]).evaluate(with: Self.person))
        #expect(try !template.withSubstitutionVariables(["minimum": 41]).evaluate(with: Self.person))
        #expect { try template.evaluate(with: Self.person) } throws: { error in
            (error as? NimbusError)?.code == .invalidPredicate && "\(error)".contains("$minimum")
        }
    }

    static let mismatches = ["age == 'x'", "name > 3", "age BEGINSWITH 'a'", "name LIKE 5", "isActive CONTAINS 'x'",
                             "tags > 3", "employer < 3", "name MATCHES '('", "uid == 'not a uuid'"]

    @Test("comparisons of incompatible types throw", arguments: mismatches)
    func typeMismatch(_ format: String) throws {
        let predicate = try QueryPredicate(format: format)
        #expect(throws: NimbusError.self) { try predicate.evaluate(with: Self.person) }
    }

    @Test("expressions built in code with missing arguments throw instead of trapping")
    func arity() throws {
        let predicate = QueryPredicate.comparison(.init(.function("lowercase:", []), .equal, .constant(.string("a"))))
        #expect(throws: NimbusError.self) { try predicate.evaluate(with: Self.person) }
        var compiler = try PredicateTestSupport.compiler()
        #expect(throws: NimbusError.self) { try compiler.condition(predicate) }
        #expect(try QueryPredicate(format: "employer.count == 12").evaluate(with: ["employer": ["count": 12] as [String: Int]]))
    }

    @Test("managed objects evaluate through relationships")
    @MainActor
    func managedObjects() throws {
        let (container, directory) = try PredicateTestSupport.container()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = container.viewContext
        let acme = try context.insertNewObject(forEntityName: "Company")
        acme.setValue("Acme", forKey: "name")
        let ann = try context.insertNewObject(forEntityName: "Person")
        ann.setValue("Ann", forKey: "name")
        ann.setValue(acme, forKey: "employer")
        let rex = try context.insertNewObject(forEntityName: "Pet")
        rex.setValue("Rex", forKey: "name")
        rex.setValue(12.0, forKey: "weight")
        try ann.setValidatedValue([rex], forKey: "pets")
        try context.save()
        #expect(try QueryPredicate(format: "employer.name == 'Acme' AND ANY pets.name == 'Rex'").evaluate(with: ann))
        #expect(try QueryPredicate(format: "employer == %@ AND SELF == %@", acme, ann).evaluate(with: ann))
        #expect(try QueryPredicate(format: "pets CONTAINS %@ AND %@ IN pets", rex, rex).evaluate(with: ann))
        #expect(try QueryPredicate(format: "pets.@sum.weight == 12 AND employer.employees.@count == 1").evaluate(with: ann))
        #expect(try QueryPredicate(format: "owner.employer.name BEGINSWITH[c] 'ac'").evaluate(with: rex))
        #expect { try QueryPredicate(format: "bogus == 1").evaluate(with: ann) } throws: { error in
            (error as? NimbusError)?.code == .unknownProperty
        }
    }
}
