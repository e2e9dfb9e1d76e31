import NimbusMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The macros under test, by the names Nimbus declares them with.
let managedMacros: [String: MacroSpec] = [
    "Managed": MacroSpec(type: ManagedMacro.self, conformances: ["ManagedEntityClass"]),
    "_ManagedProperty": MacroSpec(type: ManagedPropertyMacro.self),
    "Attribute": MacroSpec(type: ManagedOptionsMacro.self),
    "Relationship": MacroSpec(type: ManagedOptionsMacro.self),
]

/// Runs `assertMacroExpansion`, reporting failures as Swift Testing issues.
func assertExpansion(
    _ source: String, expandedSource: String, diagnostics: [DiagnosticSpec] = [],
    applyFixIts: [String]? = nil, fixedSource: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    assertMacroExpansion(source, expandedSource: expandedSource, diagnostics: diagnostics, macroSpecs: managedMacros,
                         applyFixIts: applyFixIts, fixedSource: fixedSource, failureHandler: { failure in
        Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
    })
}

@Suite("@Managed expansion")
struct ManagedMacroTests {
    @Test("stored properties become slot accessors (attributes of built-in types read a copy); the class describes its entity and names its key paths")
    func rootClass() {
        assertExpansion(
            """
            @Managed public final class Post: ManagedObject {
                @Attribute(.unique) var title: String?
                var views: Int64 = 0
                @Relationship(deleteRule: .cascade, inverse: \\Tag.posts) var tags: Set<Tag>
                var attachments: [Attachment]
                var author: Person?
                var summary: String { title ?? "" }
                static var shared = 1
            }
            """,
            expandedSource: """
            public final class Post: ManagedObject {
                var title: String? {
                    get {
                        _prepareTypedValues("title")
                        return __nimbusValue_title
                    }
                    set {
                        setManagedValue(newValue, slot: 0)
                    }
                }
                var views: Int64 {
                    init(initialValue) {
                    }
                    get {
                        _prepareTypedValues("views")
                        return __nimbusValue_views
                    }
                    set {
                        setManagedValue(newValue, slot: 1)
                    }
                }
                var tags: Set<Tag> {
                    get {
                        managedValue(slot: 2)
                    }
                    set {
                        setManagedValue(newValue, slot: 2)
                    }
                }
                var attachments: [Attachment] {
                    get {
                        managedValue(slot: 3)
                    }
                    set {
                        setManagedValue(newValue, slot: 3)
                    }
                }
                var author: Person? {
                    get {
                        managedValue(slot: 4)
                    }
                    set {
                        setManagedValue(newValue, slot: 4)
                    }
                }
                var summary: String { title ?? "" }
                static var shared = 1

                public class var managedEntityName: String {
                    "Post"
                }

                public class var managedSlotNames: [String] {
                    ["title", "views", "tags", "attachments", "author"]
                }

                public class func managedEntityDescription() -> EntityDescription {
                    ManagedSchema.entity(managedEntityName, class: Post.self, parent: nil, isAbstract: false, properties: [
                            ManagedSchema.property("title", String.self, isOptional: true, attribute: ManagedSchema.AttributeOptions(.unique)),
                            ManagedSchema.property("views", Int64.self, isOptional: false, default: 0),
                            ManagedSchema.toMany("tags", Tag.self, ordered: false, relationship: ManagedSchema.RelationshipOptions(deleteRule: .cascade, inverse: \\Tag.posts)),
                            ManagedSchema.toMany("attachments", Attachment.self, ordered: true),
                            ManagedSchema.property("author", Person.self, isOptional: true)
                    ])
                }

                public class func propertyName(for keyPath: AnyKeyPath) -> String? {
                    __nimbusPropertyName_Post(for: keyPath, root: Self.self)
                }

                public static func __nimbusPropertyName_Post<KeyPathRoot: Post>(for keyPath: AnyKeyPath, root: KeyPathRoot.Type) -> String? {
                    switch keyPath {
                        case \\Post.title:
                        return "title"
                        case \\Post.views:
                        return "views"
                        case \\Post.tags:
                        return "tags"
                        case \\Post.attachments:
                        return "attachments"
                        case \\Post.author:
                        return "author"
                    default:
                        break
                    }
                    return nil
                }

                public static var __nimbusSlotEnd_Post: Int {
                    5
                }

                @exclusivity(unchecked) private final var __nimbusValue_title: String? = nil

                @exclusivity(unchecked) private final var __nimbusValue_views: Int64 = Int64.managedNilValue

                public override func _loadTypedValues(from source: _TypedValueSource) {
                    super._loadTypedValues(from: source)
                    __nimbusValue_title = source.value(slot: 0)
                    __nimbusValue_views = source.value(slot: 1) ?? Int64.managedNilValue
                }
            }

            extension Post: ManagedEntityClass {
            }
            """)
    }
}
