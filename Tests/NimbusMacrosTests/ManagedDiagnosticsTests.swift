@testable import NimbusMacros
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@Managed diagnostics")
struct ManagedDiagnosticsTests {
    @Test("a struct is refused: managed objects are classes")
    func notAClass() {
        assertExpansion(
            """
            @Managed struct Post {
                var title: String?
            }
            """,
            expandedSource: """
            struct Post {
                var title: String?
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "@Managed applies to classes: a managed object is a class (ManagedObject or a @Managed class)", line: 1, column: 1),
            ])
    }

    @Test("a class without a superclass is refused, with a fix-it adding ManagedObject")
    func noSuperclass() {
        assertExpansion(
            """
            @Managed final class Post {
                var title: String?
            }
            """,
            expandedSource: """
            final class Post {
                var title: String?
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "a @Managed class inherits from ManagedObject or from another @Managed class", line: 1, column: 22,
                               fixIts: [FixItSpec(message: "inherit from ManagedObject")]),
            ],
            applyFixIts: ["inherit from ManagedObject"],
            fixedSource: """
            @Managed final class Post: ManagedObject {
                var title: String?
            }
            """)
    }

    @Test("what an entity cannot hold is reported at the property")
    func unsupportedProperties() {
        let source = """
            @Managed final class Post: ManagedObject {
                let identifier: UUID?
                var untyped = 3
                var tally: [String: Tag]
                var pair: (Int, Int)
                var legacy: String!
                var nested: Int??
                var maybeTags: Set<Tag?>
                @Attribute(.unique) var tags: Set<Tag>
                @Relationship(deleteRule: .cascade) var author: Person
                lazy var cached: Int = 0
                var watched: Int = 0 { didSet { print(watched) } }
                @Published var published: Bool = false
                var a, b: Int
            }
            """
        let messages = expansionDiagnostics(source)
        #expect(messages == [
            "'identifier' is a let: properties of a managed object change, declare it with var",
            "give 'untyped' an explicit type: @Managed derives the entity from declared types",
            "'tally' has type [String: Tag], which an entity cannot hold: a dictionary of other than value types is stored when marked @Attribute(.transformable) (a transformable attribute of Codable values)",
            "'pair' has type (Int, Int), which an entity cannot hold: a tuple is no attribute type; declare one property per element",
            "'legacy' has type String!, which an entity cannot hold: declare it optional (T?) instead of implicitly unwrapped (T!)",
            "'nested' has type Int??, which an entity cannot hold: a property is optional once (T?, not T??)",
            "'maybeTags' has type Set<Tag?>, which an entity cannot hold: the members of a to-many relationship are objects, never nil",
            "'tags' is a to-many relationship (a Set or an array): use @Relationship, not @Attribute",
            "'author' has @Relationship but a non-optional type: a to-one relationship is nil until set, declare it optional",
            "'cached' cannot be lazy: its value lives in the object's storage",
            "'watched' cannot have willSet/didSet: override willSave() or observe the context instead",
            "'published' has attribute @Published: @Managed properties take only @Attribute and @Relationship",
            "declare a, b one per line: each property is its own attribute or relationship",
        ])
    }

    @Test("a well-formed class has no diagnostics")
    func clean() {
        #expect(expansionDiagnostics("""
            @Managed(entityName: "CDPost") final class Post: ManagedObject {
                @Attribute(.indexed, originalName: "name") var title: String?
                var views: Int64 = 0
                var tags: Set<Tag>
                var author: Person?
                var keywords: [String]
                var scores: [String: Double]?
                var visitors: Set<UUID>
                @Attribute(.transformable) var strokes: [Stroke]?
            }
            """).isEmpty)
    }
}

/// The messages of the diagnostics `@Managed` reports for the first class of a source, in order.
func expansionDiagnostics(_ source: String) -> [String] {
    let file = Parser.parse(source: source)
    guard let classDecl = file.statements.first?.item.as(ClassDeclSyntax.self),
          case let .attribute(attribute)? = classDecl.attributes.first else { return ["no class"] }
    let context = BasicMacroExpansionContext()
    _ = ManagedClass.read(attribute, classDecl, reporting: context)
    return context.diagnostics.map(\.message)
}
