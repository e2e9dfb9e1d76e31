import Foundation
import GRDB
import Testing
@testable import Nimbus

@Suite("Predicate SQL compiler")
struct PredicateSQLCompilerTests {
    static func compile(_ format: String, _ arguments: Any?..., entity: String = "Person") throws
        -> (sql: String, joins: [String], arguments: [DatabaseValue]) {
        let model = try PredicateTestSupport.model()
        var compiler = PredicateSQLCompiler(entity: try model.entity(named: entity), schema: model.schema)
        let sql = try compiler.condition(QueryPredicate(format: format, argumentArray: arguments))
        return (sql, compiler.joins, compiler.arguments)
    }

    @Test("comparisons use IS and IS NOT, so nil equals only nil")
    func nullSemantics() throws {
        #expect(try Self.compile("age == 3").sql == "(t0.\"ZAGE\" IS ?)")
        #expect(try Self.compile("age != 3").sql == "(t0.\"ZAGE\" IS NOT ?)")
        #expect(try Self.compile("name == nil").sql == "t0.\"ZNAME\" IS NULL")
        #expect(try Self.compile("nil != name").sql == "t0.\"ZNAME\" IS NOT NULL")
        #expect(try Self.compile("NOT age < 3").sql == "NOT IFNULL((t0.\"ZAGE\" < ?), 0)")
        #expect(try Self.compile("name IN {'a', nil}").sql == "(t0.\"ZNAME\" IN (?) OR t0.\"ZNAME\" IS NULL)")
    }

    @Test("to-one key paths join once per path")
    func toOneJoins() throws {
        let compiled = try Self.compile("employer.name == 'Acme' AND employer.name != 'B'")
        #expect(compiled.joins == ["LEFT JOIN \"ZCOMPANY\" t1 ON t1.Z_PK = t0.\"ZEMPLOYER\""])
        #expect(compiled.sql == "((t1.\"ZNAME\" IS ?) AND (t1.\"ZNAME\" IS NOT ?))")
        #expect(compiled.arguments == ["Acme".databaseValue, "B".databaseValue])
    }

    @Test("to-many key paths become EXISTS and correlated subqueries")
    func toMany() throws {
        #expect(try Self.compile("ANY pets.name == 'Rex'").sql
            == "EXISTS (SELECT 1 FROM \"ZPET\" t1 WHERE (t1.\"ZOWNER\" = t0.Z_PK) AND ((t1.\"ZNAME\" IS ?)))")
        #expect(try Self.compile("ALL pets.weight > 1").sql
            == "NOT EXISTS (SELECT 1 FROM \"ZPET\" t1 WHERE (t1.\"ZOWNER\" = t0.Z_PK) AND (NOT IFNULL((t1.\"ZWEIGHT\" > ?), 0)))")
        #expect(try Self.compile("tags.@count > 2").sql
            == "((SELECT count(*) FROM \"Z_2TAGS\" t2 JOIN \"ZTAG\" t1 ON t1.Z_PK = t2.\"Z_4TAGS\" WHERE (t2.\"Z_2PEOPLE\" = t0.Z_PK)) > ?)")
        #expect(try Self.compile("pets.@sum.weight < 10").sql
            == "((SELECT COALESCE(sum(t1.\"ZWEIGHT\"), 0) FROM \"ZPET\" t1 WHERE (t1.\"ZOWNER\" = t0.Z_PK)) < ?)")
        #expect(try Self.compile("SUBQUERY(pets, $p, $p.owner.age > 3).@count > 0").sql
            == "((SELECT count(*) FROM \"ZPET\" t1 LEFT JOIN \"ZPERSON\" t2 ON t2.Z_PK = t1.\"ZOWNER\" WHERE (t1.\"ZOWNER\" = t0.Z_PK) AND ((t2.\"ZAGE\" > ?))) > ?)")
    }

    @Test("string operators never treat % or _ as wildcards and fold in NIMBUS_TEXT")
    func strings() throws {
        let begins = try Self.compile("name BEGINSWITH[cd] %@", "x%_Y")
        #expect(begins.sql == "NIMBUS_TEXT(t0.\"ZNAME\", ?, 11)")
        #expect(begins.arguments == [StringFolding.fold("x%_Y", caseInsensitive: true, diacriticInsensitive: true).databaseValue])
        let prefix = try Self.compile("name BEGINSWITH 'ab'")
        #expect(prefix.sql == "(t0.\"ZNAME\" >= ? AND t0.\"ZNAME\" < ?)")
        #expect(prefix.arguments == ["ab".databaseValue, "ac".databaseValue])
        #expect(PredicateSQLCompiler.prefixUpperBound("a\u{10FFFF}") == "b")
        #expect(PredicateSQLCompiler.prefixUpperBound("\u{D7FF}") == "\u{E000}")
        #expect(PredicateSQLCompiler.prefixUpperBound("\u{10FFFF}") == nil)
        #expect(try Self.compile("name ENDSWITH '_'").sql == "(substr(t0.\"ZNAME\", -1) = ?)")
        #expect(try Self.compile("name CONTAINS '%'").sql == "(instr(t0.\"ZNAME\", ?) > 0)")
        #expect(try Self.compile("name CONTAINS ''").sql == "0")
        #expect(try Self.compile("name LIKE[c] 'a*'").sql == "NIMBUS_TEXT(t0.\"ZNAME\", ?, 9)")
        #expect(try Self.compile("name MATCHES[c] 'a.*'").sql == "NIMBUS_MATCHES(t0.\"ZNAME\", ?, 1)")
        #expect(try Self.compile("name BEGINSWITH nickname").sql == "NIMBUS_BEGINSWITH(t0.\"ZNAME\", t0.\"ZNICKNAME\")")
    }

    @Test("constants are coerced to the attribute's type")
    func coercion() throws {
        let uuid = UUID()
        let date = Date(timeIntervalSinceReferenceDate: 12.5)
        #expect(try Self.compile("uid == %@", uuid.uuidString).arguments == [PropertyValue.uuid(uuid).databaseValue])
        #expect(try Self.compile("birthday > %@", date).arguments == [(12.5).databaseValue])
        #expect(try Self.compile("isActive == YES").arguments == [Int64(1).databaseValue])
        #expect(try Self.compile("3 < 4").sql == "1")
    }

    static let typeErrors: [(String, String)] = [
        ("age == 'x'", "string"), ("name > 3", "3"), ("age BEGINSWITH 'a'", "BEGINSWITH"), ("name LIKE 5", "LIKE"),
        ("isActive CONTAINS 'x'", "CONTAINS"), ("employer < 3", "object"), ("ANY tags == 'x'", "x"),
        ("uid == 'not a uuid'", "uuid"), ("birthday == 'yesterday'", "yesterday"), ("pets.@sum.name > 1", "@sum"),
        ("name == age", "string"), ("tags == 3", "object values"), ("lowercase:(age) == 'a'", "string"),
    ]

    @Test("type mismatches throw typeMismatch naming the comparison", arguments: typeErrors)
    func typeMismatch(_ format: String, _ mention: String) throws {
        #expect { try Self.compile(format) } throws: { error in
            guard let error = error as? NimbusError else { return false }
            return error.code == .typeMismatch && error.message.contains(mention)
        }
    }

    static let unknownKeys = ["bogus == 1", "employer.bogus == 1", "ANY pets.bogus == 1", "name.length == 1", "pets.@count.x > 1",
                              "SUBQUERY(pets, $p, $p.bogus > 1).@count > 0"]

    @Test("unknown key paths throw unknownProperty naming the key", arguments: unknownKeys)
    func unknownKey(_ format: String) throws {
        #expect { try Self.compile(format) } throws: { error in
            guard let error = error as? NimbusError else { return false }
            return error.code == .unknownProperty && (error.message.contains("bogus") || error.message.contains("cannot continue"))
        }
    }

    @Test("expressions inline constants and aggregate for select lists")
    func expressions() throws {
        let model = try PredicateTestSupport.model()
        var compiler = PredicateSQLCompiler(entity: try model.entity(named: "Person"), schema: model.schema)
        #expect(try compiler.expression(QueryExpression(format: "age * 2 + 1")) == ("((t0.\"ZAGE\" * 2) + 1)", .integer64))
        #expect(try compiler.expression(QueryExpression(format: "count:(name)")) == ("count(t0.\"ZNAME\")", .integer64))
        #expect(try compiler.expression(QueryExpression(format: "pets.@avg.weight")).type == .double)
        #expect(try compiler.expression(QueryExpression(format: "lowercase:(employer.name)")).sql == "NIMBUS_LOWER(t2.\"ZNAME\")")
        #expect(try compiler.expression(.constant(.string("it's"))).sql == "'it''s'")
        #expect(compiler.arguments.isEmpty)
        #expect(compiler.joins == ["LEFT JOIN \"ZCOMPANY\" t2 ON t2.Z_PK = t0.\"ZEMPLOYER\""])
    }

    @Test("the main table can be named instead of aliased, for UPDATE statements")
    func mainAlias() throws {
        let model = try PredicateTestSupport.model()
        var compiler = PredicateSQLCompiler(entity: try model.entity(named: "Person"), schema: model.schema, alias: "ZPERSON")
        #expect(try compiler.expression(QueryExpression(format: "age + pets.@count")).sql
            == "(ZPERSON.\"ZAGE\" + (SELECT count(*) FROM \"ZPET\" t1 WHERE (t1.\"ZOWNER\" = ZPERSON.Z_PK)))")
        #expect(compiler.joins.isEmpty)
    }

    @Test("sort descriptors compile with collations and NULLs first ascending")
    func orderBy() throws {
        let model = try PredicateTestSupport.model()
        var compiler = PredicateSQLCompiler(entity: try model.entity(named: "Person"), schema: model.schema)
        let sql = try compiler.orderBy([FetchSortDescriptor("name", comparison: .caseInsensitive),
                                        FetchSortDescriptor("employer.name", ascending: false, comparison: .localizedStandard),
                                        FetchSortDescriptor("age")])
        #expect(sql == "t0.\"ZNAME\" COLLATE NIMBUS_CASE_INSENSITIVE, t1.\"ZNAME\" COLLATE NIMBUS_LOCALIZED DESC, t0.\"ZAGE\"")
        #expect(throws: NimbusError.self) { try compiler.orderBy([FetchSortDescriptor("pets")]) }
    }

    @Test("expressions and aggregates fetch as dictionaries, grouped and filtered by having")
    @MainActor
    func dictionaryFetch() throws {
        let (container, directory) = try PredicateTestSupport.container()
        defer { try? FileManager.default.removeItem(at: directory) }
        let context = container.viewContext
        for (name, age, pets) in [("Ann", 30, 2), ("ann", 40, 0), ("Bob", 50, 1), ("Bob", 60, 3)] {
            let person = try context.insertNewObject(forEntityName: "Person")
            person.setValue(name, forKey: "name")
            person.setValue(age, forKey: "age")
            try person.setValidatedValue(try (0..<pets).map { i in
                let pet = try context.insertNewObject(forEntityName: "Pet")
                pet.setValue(Double(i + 1), forKey: "weight")
                return pet
            }, forKey: "pets")
        }
        try context.save()

        var request = FetchRequest<[String: Any]>(entityName: "Person")
        request.propertiesToFetch = ["name", .expression(name: "pets", try QueryExpression(format: "pets.@count"), type: .integer64),
                                     .expression(name: "heaviest", try QueryExpression(format: "pets.@max.weight"), type: .double),
                                     .expression(name: "next", try QueryExpression(format: "age + 1"), type: .integer64)]
        request.predicate = try QueryPredicate(format: "name BEGINSWITH[c] %@", "a")
        request.sortDescriptors = [FetchSortDescriptor("age", ascending: false)]
        let rows = try context.fetch(request)
        #expect(rows.map { $0["name"] as? String } == ["ann", "Ann"])
        #expect(rows.map { $0["pets"] as? Int64 } == [0, 2])
        #expect(rows.map { $0["heaviest"] as? Double } == [nil, 2.0])
        #expect(rows.map { $0["next"] as? Int64 } == [41, 31])

        var grouped = FetchRequest<[String: Any]>(entityName: "Person")
        grouped.propertiesToFetch = [.expression(name: "key", try QueryExpression(format: "lowercase:(name)"), type: .string),
                                     .expression(name: "total", try QueryExpression(format: "sum:(age)"), type: .integer64)]
        grouped.propertiesToGroupBy = [.expression(name: "key", try QueryExpression(format: "lowercase:(name)"), type: .string)]
        grouped.havingPredicate = try QueryPredicate(format: "total > %d AND key BEGINSWITH[c] %@ AND count:(age) == 2", 75, "B")
        grouped.sortDescriptors = [FetchSortDescriptor("name")]
        let groups = try context.fetch(grouped)
        #expect(groups.map { $0["key"] as? String } == ["bob"])
        #expect(groups.map { $0["total"] as? Int64 } == [110])
    }
}
