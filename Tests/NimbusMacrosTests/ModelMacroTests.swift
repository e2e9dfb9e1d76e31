import NimbusMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// NimbusData's macros, by the names it declares them with.
let modelMacros: [String: MacroSpec] = [
    "Model": MacroSpec(type: ModelMacro.self, conformances: ["PersistentModel"]),
    "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
    "Attribute": MacroSpec(type: ModelMarkerMacro.self),
    "Relationship": MacroSpec(type: ModelMarkerMacro.self),
    "Transient": MacroSpec(type: ModelMarkerMacro.self),
    "Unique": MacroSpec(type: ModelEntityOptionMacro.self),
    "Index": MacroSpec(type: ModelEntityOptionMacro.self),
]

func assertModelExpansion(_ source: String, expandedSource: String, diagnostics: [DiagnosticSpec] = [],
                          sourceLocation: SourceLocation = #_sourceLocation) {
    assertMacroExpansion(source, expandedSource: expandedSource, diagnostics: diagnostics, macroSpecs: modelMacros,
                         failureHandler: { failure in
        Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
    })
}

@Suite("@Model expansion")
struct ModelMacroTests {
    @Test("persisted properties become backing accessors; @Transient, computed and static ones stay; #Unique and #Index are read")
    func model() {
        assertModelExpansion(
            """
            @Model final class Note {
                #Unique<Note>([\\.title, \\.code])
                #Index<Note>([\\.title])
                var title: String
                var count: Int = 0
                @Attribute(.unique) var code: String?
                @Relationship(deleteRule: .cascade, inverse: \\Item.note) var items: [Item] = []
                @Transient var scratch = 0
                var doubled: Int { count * 2 }
                static var shared = 1
            }
            """,
            expandedSource: """
            final class Note {
                var title: String {
                    @storageRestrictions(accesses: _$backingData)
                    init(initialValue) {
                        _$backingData.setInitialValue(initialValue, forKey: "title")
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: \\.title)
                        return _$backingData.getValue(forKey: "title", of: self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \\.title) {
                            _$backingData.setValue(newValue, forKey: "title", of: self)
                        }
                    }
                }
                var count: Int = 0 {
                    @storageRestrictions(accesses: _$backingData)
                    init(initialValue) {
                        _$backingData.setInitialValue(initialValue, forKey: "count")
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: \\.count)
                        return _$backingData.getValue(forKey: "count", of: self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \\.count) {
                            _$backingData.setValue(newValue, forKey: "count", of: self)
                        }
                    }
                }
                var code: String? {
                    @storageRestrictions(accesses: _$backingData)
                    init(initialValue) {
                        _$backingData.setInitialValue(initialValue, forKey: "code")
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: \\.code)
                        return _$backingData.getValue(forKey: "code", of: self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \\.code) {
                            _$backingData.setValue(newValue, forKey: "code", of: self)
                        }
                    }
                }
                var items: [Item] = [] {
                    @storageRestrictions(accesses: _$backingData)
                    init(initialValue) {
                        _$backingData.setInitialValue(initialValue, forKey: "items")
                    }
                    get {
                        _$observationRegistrar.access(self, keyPath: \\.items)
                        return _$backingData.getValue(forKey: "items", of: self)
                    }
                    set {
                        _$observationRegistrar.withMutation(of: self, keyPath: \\.items) {
                            _$backingData.setValue(newValue, forKey: "items", of: self)
                        }
                    }
                }
                var scratch = 0
                var doubled: Int { count * 2 }
                static var shared = 1

                private var _$backingData = NimbusData._ModelBacking()

                private let _$observationRegistrar = NimbusData._ObservationRegistrar()

                var _nimbusBacking: NimbusData._ModelBacking {
                    _$backingData
                }

                required init(backingData: NimbusData._ModelBacking) {
                    self._$backingData = backingData
                }

                static var schemaMetadata: [NimbusData.Schema.PropertyMetadata] {
                    [
                    NimbusData.Schema.PropertyMetadata(name: "title", keypath: \\Note.title, metadata: nil),
                    NimbusData.Schema.PropertyMetadata(name: "count", keypath: \\Note.count, defaultValue: 0, metadata: nil),
                    NimbusData.Schema.PropertyMetadata(name: "code", keypath: \\Note.code, metadata: NimbusData.Schema.Attribute(.unique)),
                    NimbusData.Schema.PropertyMetadata(name: "items", keypath: \\Note.items, defaultValue: [], metadata: NimbusData.Schema.Relationship(deleteRule: .cascade, inverse: \\Item.note))
                    ]
                }

                static var _nimbusUniqueness: [[String]] {
                    [["title", "code"]]
                }

                static var _nimbusIndexes: [[String]] {
                    [["title"]]
                }

                static func propertyName(for keyPath: AnyKeyPath) -> String? {
                    switch keyPath {
                    case \\Note.title:
                        return "title"
                    case \\Note.count:
                        return "count"
                    case \\Note.code:
                        return "code"
                    case \\Note.items:
                        return "items"
                    default:
                        return nil
                    }
                }

                func _nimbusNotifyObservers(_ keys: Set<String>) {
                    if keys.contains("title") {
                        _$observationRegistrar.withMutation(of: self, keyPath: \\.title) {
                        }
                    }
                    if keys.contains("count") {
                        _$observationRegistrar.withMutation(of: self, keyPath: \\.count) {
                        }
                    }
                    if keys.contains("code") {
                        _$observationRegistrar.withMutation(of: self, keyPath: \\.code) {
                        }
                    }
                    if keys.contains("items") {
                        _$observationRegistrar.withMutation(of: self, keyPath: \\.items) {
                        }
                    }
                }
            }

            extension Note: PersistentModel {
            }
            """
        )
    }

    @Test("@Model on a struct is an error")
    func notAClass() {
        assertModelExpansion(
            """
            @Model struct Note {
                var title: String
            }
            """,
            expandedSource: """
            struct Note {
                var title: String
            }
            """,
            diagnostics: [DiagnosticSpec(message: "@Model applies to a class (final class Trip { … })", line: 1, column: 1)]
        )
    }
}
