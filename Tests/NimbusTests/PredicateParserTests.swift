import Foundation
import Testing
@testable import Nimbus

@Suite("Predicate format parser")
struct PredicateParserTests {
    typealias C = QueryPredicate.Comparison

    static func cmp(_ l: QueryExpression, _ op: C.Operator, _ r: QueryExpression,
                    _ modifier: C.Modifier = .direct, _ options: C.Options = []) -> QueryPredicate {
        .comparison(C(l, op, r, modifier: modifier, options: options))
    }
    static func key(_ path: String) -> QueryExpression { .keyPath(path.split(separator: ".").map(String.init)) }
    static func int(_ v: Int64) -> QueryExpression { .constant(.integer(v)) }
    static func str(_ v: String) -> QueryExpression { .constant(.string(v)) }

    static let grammar: [(String, QueryPredicate)] = [
        ("age == 3", cmp(key("age"), .equal, int(3))),
        ("age = 3", cmp(key("age"), .equal, int(3))),
        ("age != 3", cmp(key("age"), .notEqual, int(3))),
        ("age <> 3", cmp(key("age"), .notEqual, int(3))),
        ("age < 3", cmp(key("age"), .lessThan, int(3))),
        ("age <= 3", cmp(key("age"), .lessThanOrEqual, int(3))),
        ("age =< 3", cmp(key("age"), .lessThanOrEqual, int(3))),
        ("age > 3", cmp(key("age"), .greaterThan, int(3))),
        ("age >= 3", cmp(key("age"), .greaterThanOrEqual, int(3))),
        ("age => 3", cmp(key("age"), .greaterThanOrEqual, int(3))),
        ("age BETWEEN {1, 10}", cmp(key("age"), .between, .aggregate([int(1), int(10)]))),
        ("name BEGINSWITH 'a'", cmp(key("name"), .beginsWith, str("a"))),
        ("name endswith[c] \"b\"", cmp(key("name"), .endsWith, str("b"), .direct, [.caseInsensitive])),
        ("name CONTAINS[cd] 'x'", cmp(key("name"), .contains, str("x"), .direct, [.caseInsensitive, .diacriticInsensitive])),
        ("name LIKE[d] 'a*'", cmp(key("name"), .like, str("a*"), .direct, [.diacriticInsensitive])),
        ("name MATCHES[n] '.*'", cmp(key("name"), .matches, str(".*"), .direct, [.normalized])),
        ("name IN {'a', 'b'}", cmp(key("name"), .in, .aggregate([str("a"), str("b")]))),
        ("'a' IN tags.name", cmp(str("a"), .in, key("tags.name"))),
        ("TRUEPREDICATE", .truePredicate),
        ("falsepredicate", .falsePredicate),
        ("a == 1 AND b == 2 && c == 3", .and([cmp(key("a"), .equal, int(1)), cmp(key("b"), .equal, int(2)), cmp(key("c"), .equal, int(3))])),
        ("a == 1 OR b == 2 || c == 3", .or([cmp(key("a"), .equal, int(1)), cmp(key("b"), .equal, int(2)), cmp(key("c"), .equal, int(3))])),
        ("a == 1 OR b == 2 AND c == 3", .or([cmp(key("a"), .equal, int(1)), .and([cmp(key("b"), .equal, int(2)), cmp(key("c"), .equal, int(3))])])),
        ("(a == 1 OR b == 2) AND c == 3", .and([.or([cmp(key("a"), .equal, int(1)), cmp(key("b"), .equal, int(2))]), cmp(key("c"), .equal, int(3))])),
        ("NOT a == 1", .not(cmp(key("a"), .equal, int(1)))),
        ("!(a == 1)", .not(cmp(key("a"), .equal, int(1)))),
        ("ANY tags.name == 'x'", cmp(key("tags.name"), .equal, str("x"), .any)),
        ("SOME tags.name == 'x'", cmp(key("tags.name"), .equal, str("x"), .any)),
        ("ALL tags.name == 'x'", cmp(key("tags.name"), .equal, str("x"), .all)),
        ("NONE tags.name == 'x'", .not(cmp(key("tags.name"), .equal, str("x"), .any))),
        ("tags.@count > 2", cmp(.keyPath(["tags", "@count"]), .greaterThan, int(2))),
        ("items.@sum.price < 10.5", cmp(.keyPath(["items", "@sum", "price"]), .lessThan, .constant(.double(10.5)))),
        ("items.@AVG.price >= 1", cmp(.keyPath(["items", "@avg", "price"]), .greaterThanOrEqual, int(1))),
        ("SELF == nil", cmp(.evaluatedObject, .equal, .constant(.null))),
        ("SELF.name == NULL", cmp(key("name"), .equal, .constant(.null))),
        ("flag == YES", cmp(key("flag"), .equal, .constant(.bool(true)))),
        ("flag == false", cmp(key("flag"), .equal, .constant(.bool(false)))),
        ("#in == 1", cmp(.keyPath(["in"]), .equal, int(1))),
        ("author.#and == 1", cmp(.keyPath(["author", "and"]), .equal, int(1))),
        ("x == -5", cmp(key("x"), .equal, int(-5))),
        ("x == 0x1F", cmp(key("x"), .equal, int(31))),
        ("x == 1e3", cmp(key("x"), .equal, .constant(.double(1000)))),
        ("x == -9223372036854775808", cmp(key("x"), .equal, int(Int64.min))),
        ("s == 'it\\'s \\n \\u00e9'", cmp(key("s"), .equal, str("it's \n é"))),
        ("d == CAST(0, 'NSDate')", cmp(key("d"), .equal, .constant(.date(Date(timeIntervalSinceReferenceDate: 0))))),
        ("d > CAST('2001-01-01T00:01:00Z', 'NSDate')", cmp(key("d"), .greaterThan, .constant(.date(Date(timeIntervalSinceReferenceDate: 60))))),
        ("SUBQUERY(employees, $e, $e.salary > 1000).@count > 0",
         cmp(.function("count:", [.subquery(collection: key("employees"), variable: "e",
                                            predicate: cmp(.variableKeyPath("e", ["salary"]), .greaterThan, int(1000)))]), .greaterThan, int(0))),
        ("a + 2 * b > 3", cmp(.function("add:to:", [key("a"), .function("multiply:by:", [int(2), key("b")])]), .greaterThan, int(3))),
        ("(a - b) / 2 == 1", cmp(.function("divide:by:", [.function("from:subtract:", [key("a"), key("b")]), int(2)]), .equal, int(1))),
        ("2 ** 3 ** 2 == 512", cmp(.function("raise:toPower:", [int(2), .function("raise:toPower:", [int(3), int(2)])]), .equal, int(512))),
        ("lowercase:(name) == 'a'", cmp(.function("lowercase:", [key("name")]), .equal, str("a"))),
        ("uppercase(name) == 'A'", cmp(.function("uppercase:", [key("name")]), .equal, str("A"))),
        ("FUNCTION(name, 'uppercase:') == 'A'", cmp(.function("uppercase:", [key("name")]), .equal, str("A"))),
        ("FUNCTION(SELF, 'lowercase:', name) == 'a'", cmp(.function("lowercase:", [key("name")]), .equal, str("a"))),
        ("modulus:by:(age, 2) == 0", cmp(.function("modulus:by:", [key("age"), int(2)]), .equal, int(0))),
        ("created < now()", cmp(key("created"), .lessThan, .function("now", []))),
        ("TERNARY(a > 1, b, c) == 2", cmp(.conditional(cmp(key("a"), .greaterThan, int(1)), key("b"), key("c")), .equal, int(2))),
        ("age > $minimum", cmp(key("age"), .greaterThan, .variable("minimum"))),
        ("children[FIRST] == 1", cmp(.function("objectFrom:withIndex:", [key("children"), int(0)]), .equal, int(1))),
        ("children[LAST] == 1", cmp(.function("objectFrom:withIndex:", [key("children"), int(-1)]), .equal, int(1))),
        ("children[2] == 1", cmp(.function("objectFrom:withIndex:", [key("children"), int(2)]), .equal, int(1))),
        ("children[SIZE] == 3", cmp(.function("count:", [key("children")]), .equal, int(3))),
    ]

    @Test("parses every construct of the format grammar", arguments: grammar)
    func parses(_ format: String, _ expected: QueryPredicate) throws {
        #expect(try QueryPredicate(format: format) == expected)
    }

    @Test("printed predicates parse back to equal predicates", arguments: grammar.map(\.0))
    func roundTrip(_ format: String) throws {
        let predicate = try QueryPredicate(format: format)
        let printed = predicate.predicateFormat
        #expect(try QueryPredicate(format: printed) == predicate, "printed as \(printed)")
    }

    @Test("reserved words are case-insensitive")
    func reservedWordsIgnoreCase() throws {
        #expect(try QueryPredicate(format: "a == 1 and not b == 2 Or c between {1, 2}")
            == QueryPredicate(format: "a == 1 AND NOT b == 2 OR c BETWEEN {1, 2}"))
        #expect(try QueryPredicate(format: "any tags.name like[C] 'x'") == QueryPredicate(format: "ANY tags.name LIKE[c] 'x'"))
    }

    @Test("format specifiers take arguments in order")
    func formatArguments() throws {
        let date = Date(timeIntervalSinceReferenceDate: 1000)
        let uuid = UUID()
        #expect(try QueryPredicate(format: "%K == %@", "author.name", "Ann") == Self.cmp(Self.key("author.name"), .equal, Self.str("Ann")))
        #expect(try QueryPredicate(format: "age > %d AND score < %f", 18, 2.5)
            == .and([Self.cmp(Self.key("age"), .greaterThan, Self.int(18)), Self.cmp(Self.key("score"), .lessThan, .constant(.double(2.5)))]))
        #expect(try QueryPredicate(format: "a == %i OR b == %ld OR c == %lf", 1, 2, 3.0)
            == .or([Self.cmp(Self.key("a"), .equal, Self.int(1)), Self.cmp(Self.key("b"), .equal, Self.int(2)), Self.cmp(Self.key("c"), .equal, .constant(.double(3)))]))
        #expect(try QueryPredicate(format: "name IN %@", ["a", "b"]) == Self.cmp(Self.key("name"), .in, .aggregate([Self.str("a"), Self.str("b")])))
        #expect(try QueryPredicate(format: "birthday BETWEEN %@", [date, date])
            == Self.cmp(Self.key("birthday"), .between, .aggregate([.constant(.date(date)), .constant(.date(date))])))
        #expect(try QueryPredicate(format: "uid == %@ AND x == %@", uuid, nil)
            == .and([Self.cmp(Self.key("uid"), .equal, .constant(.uuid(uuid))), Self.cmp(Self.key("x"), .equal, .constant(.null))]))
        #expect(try QueryPredicate(format: "%K BEGINSWITH %@", argumentArray: ["name", "x"]) == Self.cmp(Self.key("name"), .beginsWith, Self.str("x")))
    }

    @Test("Core Data documentation examples parse")
    func documentationExamples() throws {
        let examples = [
            "ANY employees.firstName like 'Matthew'",
            "SUBQUERY(employees, $e, $e.salary > 1000).@count > 0",
            "(firstName like[cd] 'Matthew') AND (lastName like 'Smith')",
            "grandchildren.@count > 3",
            "ALL children.age > 12",
            "NONE employees.salary < 10000",
            "department.name BEGINSWITH[c] 'Eng'",
            "employees.@avg.salary > 50000",
            "name MATCHES '^[A-Z].*'",
            "date BETWEEN { CAST(0, 'NSDate'), CAST(86400.0, 'NSDate') }",
            "SELF IN {1, 2}",
            "lastName IN {'Smith', 'Jones'}",
            "title == nil OR title == ''",
        ]
        for example in examples {
            let predicate = try QueryPredicate(format: example)
            #expect(try QueryPredicate(format: predicate.predicateFormat) == predicate, "\(example)")
        }
    }

    @Test("substitution variables are replaced, subquery variables are kept")
    func substitution() throws {
        let template = try QueryPredicate(format: "age > $minimum AND SUBQUERY(pets, $p, $p.age > $minimum).@count > 0")
        let bound = try template.withSubstitutionVariables(["minimum": 3, "p": 99])
        #expect(bound == (try QueryPredicate(format: "age > 3 AND SUBQUERY(pets, $p, $p.age > 3).@count > 0")))
    }

    static let malformed: [(String, Int)] = [
        ("", 1),
        ("age ==", 7),
        ("age == 'unterminated", 8),
        ("(age == 1", 10),
        ("age == 1 AND", 13),
        ("age 1", 5),
        ("age == 1 garbage", 10),
        ("name BEGINSWITH[x] 'a'", 17),
        ("age == %@", 8),
        ("age ~ 3", 5),
        ("a.@bogus > 1", 3),
        ("SUBQUERY(items, x, x > 1)", 17),
        ("x == 12abc", 6),
        ("AND == 1", 1),
        ("x BETWEEN {1, 2, 3}", 3),
        ("bogus:(x) == 1", 1),
        ("FUNCTION(name, 'add:to:') == 1", 16),
        ("lowercase:(a, b) == 1", 1),
        ("#1 == 1", 1),
    ]

    @Test("malformed input throws invalidPredicate with the column", arguments: malformed)
    func malformedInput(_ format: String, _ column: Int) {
        do {
            _ = try QueryPredicate(format: format)
            Issue.record("\(format) parsed")
        } catch let error as NimbusError {
            #expect(error.code == .invalidPredicate)
            #expect(error.column == column, "\(format): \(error.message)")
            #expect(error.message.hasSuffix("at column \(column)"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
