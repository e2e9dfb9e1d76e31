import Foundation
import GRDB
import Testing
@testable import Nimbus

/// `[c]`, `[d]`, `[cd]` string comparisons through `NIMBUS_TEXT`: the same answers as
/// folding with Foundation, byte by byte on ASCII text.
@Suite("Text predicate fast path")
struct TextPredicateFastPathTests {
    @Test("Foundation folds ASCII exactly as the fast path does: A–Z lower-cased under [c], nothing else changed")
    func asciiFolding() {
        for byte in UInt8(0)..<128 {
            let text = String(UnicodeScalar(byte))
            let lowered = byte >= 65 && byte <= 90 ? String(UnicodeScalar(byte | 0x20)) : text
            #expect(StringFolding.fold(text, caseInsensitive: true, diacriticInsensitive: false) == lowered, "byte \(byte)")
            #expect(StringFolding.fold(text, caseInsensitive: false, diacriticInsensitive: true) == text, "byte \(byte)")
            #expect(StringFolding.fold(text, caseInsensitive: true, diacriticInsensitive: true) == lowered, "byte \(byte)")
        }
    }

    @Test("comparisons with options and LIKE compile to one NIMBUS_TEXT call with the folded constant")
    func compiledSQL() throws {
        let contains = try PredicateSQLCompilerTests.compile("name CONTAINS[cd] %@", "ÉCH")
        #expect(contains.sql == "NIMBUS_TEXT(t0.\"ZNAME\", ?, 7)")
        #expect(contains.arguments == ["ech".databaseValue])
        #expect(try PredicateSQLCompilerTests.compile("name ==[c] 'Ab'").sql == "IFNULL(NIMBUS_TEXT(t0.\"ZNAME\", ?, 17), 0)")
        #expect(try PredicateSQLCompilerTests.compile("'Ab' !=[d] name").sql == "IFNULL(NOT NIMBUS_TEXT(t0.\"ZNAME\", ?, 18), 1)")
        #expect(try PredicateSQLCompilerTests.compile("name ENDSWITH[c] 'x'").sql == "NIMBUS_TEXT(t0.\"ZNAME\", ?, 13)")
        #expect(try PredicateSQLCompilerTests.compile("name LIKE 'a?'").sql == "NIMBUS_TEXT(t0.\"ZNAME\", ?, 20)")
        #expect(try PredicateSQLCompilerTests.compile("name CONTAINS[c] ''").sql == "0")
        // A literal between stars is a substring test; a prefix or suffix pattern likewise.
        let like = try PredicateSQLCompilerTests.compile("name LIKE[c] '*ECHO*'")
        #expect(like.sql == "NIMBUS_TEXT(t0.\"ZNAME\", ?, 5)")
        #expect(like.arguments == ["echo".databaseValue])
        #expect(try PredicateSQLCompilerTests.compile("name LIKE 'ab*'").sql == "NIMBUS_TEXT(t0.\"ZNAME\", ?, 8)")
        #expect(try PredicateSQLCompilerTests.compile("name LIKE '*ab'").sql == "NIMBUS_TEXT(t0.\"ZNAME\", ?, 12)")
        #expect(try PredicateSQLCompilerTests.compile("name LIKE '*a?b*'").sql == "NIMBUS_TEXT(t0.\"ZNAME\", ?, 20)")
        // Without options the plain SQL stays (an index can serve a prefix range).
        #expect(try PredicateSQLCompilerTests.compile("name CONTAINS 'a'").sql == "(instr(t0.\"ZNAME\", ?) > 0)")
        #expect(try PredicateSQLCompilerTests.compile("name == 'a'").sql == "(t0.\"ZNAME\" IS ?)")
    }

    static let texts: [String?] = [
        nil, "", "Technology", "TECHNOLOGY", "mechanic", "Czech", "Échelle", "échec", "ECHO", "e\u{301}cho", "straße", "STRASSE",
        "İstanbul", "a*b", "a\\b", "x?y", "tech", "Tech Report", "report tech", "日本 tech", "ech",
    ]
    static let formats = [
        "name CONTAINS[c] %@", "name CONTAINS[d] %@", "name CONTAINS[cd] %@", "name BEGINSWITH[c] %@", "name BEGINSWITH[cd] %@",
        "name ENDSWITH[c] %@", "name ENDSWITH[cd] %@", "name ==[c] %@", "name !=[cd] %@", "NOT name ==[cd] %@", "name LIKE[c] %@",
        "name LIKE %@", "name LIKE[cd] %@",
    ]
    static let needles = ["ech", "ÉCH", "TECH", "tech", "échec", "SS", "ß", "ECHO", "*ech*", "?ech*", "a\\*b", "a\\\\b", "x?y", "", "*", "i̇",
                          "*ECH", "Tech*", "**", "*a\\*", "*é*", "*"]

    @Test("SQL selects exactly what the in-memory evaluator accepts, for every operator, option, needle and text")
    func sameAnswers() throws {
        let (container, _) = try PredicateTestSupport.container()
        let context = container.newBackgroundContext()
        try context.performAndWait { () throws in
            for text in Self.texts {
                let person = try context.insertNewObject(forEntityName: "Person")
                try person.setValidatedValue(text, forKey: "name")
            }
            try context.save()
            context.reset()
            let all = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person"))
            for format in Self.formats {
                for needle in Self.needles {
                    let predicate = try QueryPredicate(format: format, needle)
                    var request = FetchRequest<ManagedObject>(entityName: "Person")
                    request.predicate = predicate
                    let fetched = Set(try context.fetch(request).map { $0.value(forKey: "name") as? String ?? "<nil>" })
                    let expected = Set(try all.filter { try predicate.evaluate(with: $0) }.map { $0.value(forKey: "name") as? String ?? "<nil>" })
                    #expect(fetched == expected, "\(format) with \(needle)")
                }
            }
        }
    }

    @Test("a malformed comparison is still a typed error, and a non-string constant is refused")
    func badInput() throws {
        #expect(throws: NimbusError.self) { try PredicateSQLCompilerTests.compile("name CONTAINS[c] 3") }
        #expect(throws: NimbusError.self) { try PredicateSQLCompilerTests.compile("age CONTAINS[c] 'a'") }
    }
}
