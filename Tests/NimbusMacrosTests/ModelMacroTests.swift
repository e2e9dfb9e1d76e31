import NimbusMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// NimbusData's macros, by the names it declares them with.
let modelMacros: [String: MacroSpec] = [
    "Model": MacroSpec(type: ModelMacro.self, conformances: ["PersistentModel"]),
    "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
    "ModelActor": MacroSpec(type: ModelActorMacro.self, conformances: ["ModelActor"]),
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
                    @storageRestrictions(initializes: _$persisted_title, accesses: _$backingData)
                    init(initialValue) {
                        _$backingData.setInitialValue(initialValue, forKey: "title")
                        _$persisted_title = NimbusData._PersistedSlot()
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

                private var _$persisted_title: NimbusData._PersistedSlot
                var count: Int {
                    @storageRestrictions(initializes: _$persisted_count, accesses: _$backingData)
                    init(initialValue) {
                        _$backingData.setInitialValue(initialValue, forKey: "count")
                        _$persisted_count = NimbusData._PersistedSlot()
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

                private var _$persisted_count: NimbusData._PersistedSlot
                var code: String? {
                    @storageRestrictions(initializes: _$persisted_code, accesses: _$backingData)
                    init(initialValue) {
                        _$backingData.setInitialValue(initialValue, forKey: "code")
                        _$persisted_code = NimbusData._PersistedSlot()
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

                private var _$persisted_code: NimbusData._PersistedSlot
                var items: [Item] {
                    @storageRestrictions(initializes: _$persisted_items, accesses: _$backingData)
                    init(initialValue) {
                        _$backingData.setInitialValue(initialValue, forKey: "items")
                        _$persisted_items = NimbusData._PersistedSlot()
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

                private var _$persisted_items: NimbusData._PersistedSlot
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
                    _$persisted_title = NimbusData._PersistedSlot()
                    _$persisted_count = NimbusData._PersistedSlot()
                    _$persisted_code = NimbusData._PersistedSlot()
                    _$persisted_items = NimbusData._PersistedSlot()
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

    @Test("@ModelActor gives an actor its container, executor and initializer")
    func modelActor() {
        assertModelExpansion(
            """
            @ModelActor actor Importer {
                func run() {}
            }
            """,
            expandedSource: """
            actor Importer {
                func run() {}

                nonisolated let modelExecutor: any NimbusData.ModelExecutor

                nonisolated let modelContainer: NimbusData.ModelContainer

                init(modelContainer: NimbusData.ModelContainer) {
                    let modelContext = NimbusData.ModelContext(modelContainer)
                    self.modelExecutor = NimbusData.DefaultSerialModelExecutor(modelContext: modelContext)
                    self.modelContainer = modelContainer
                }
            }

            extension Importer: ModelActor {
            }
            """
        )
    }
}
