import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// A class that NimbusData's `@Model` applies to: its persisted properties and the
/// entity-level declarations (`#Unique`, `#Index`) of its body.
struct ModelClass {
    /// One persisted (not `@Transient`) stored property.
    struct Property {
        let name: String
        let initializer: ExprSyntax?
        /// `Schema.Attribute(…)` or `Schema.Relationship(…)` for the property's options.
        let metadata: String
    }

    let name: String
    /// `public `, `package ` or empty: the access of the members the macro writes.
    let access: String
    let properties: [Property]
    /// The key path lists of `#Unique<T>(…)`, as property names.
    let uniqueness: [[String]]
    /// The key path lists of `#Index<T>(…)`, as property names.
    let indexes: [[String]]

    /// Reads the class, reporting what it cannot express; nil when it is not a class.
    static func read(_ node: AttributeSyntax, _ declaration: some DeclGroupSyntax, reporting context: (any MacroExpansionContext)?) -> ModelClass? {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            context?.diagnose(Diagnostic(node: node, message: ModelDiagnostic.notAClass))
            return nil
        }
        let modifiers = classDecl.modifiers.map(\.name.text)
        let access = modifiers.contains("public") || modifiers.contains("open") ? "public " : modifiers.contains("package") ? "package " : ""
        var properties: [Property] = []
        var uniqueness: [[String]] = []
        var indexes: [[String]] = []
        for member in classDecl.memberBlock.members {
            if let expansion = member.decl.as(MacroExpansionDeclSyntax.self) {
                let lists = keyPathLists(expansion.arguments)
                switch expansion.macroName.text {
                case "Unique": uniqueness += lists
                case "Index": indexes += lists
                default: break
                }
                continue
            }
            guard let variable = member.decl.as(VariableDeclSyntax.self), let name = persistedName(variable) else { continue }
            if variable.bindingSpecifier.tokenKind == .keyword(.let) {
                context?.diagnose(Diagnostic(node: variable.bindingSpecifier, message: ModelDiagnostic.constant(name)))
                continue
            }
            let binding = variable.bindings.first!
            var metadata = "nil"
            for element in variable.attributes {
                guard case let .attribute(attribute) = element else { continue }
                let arguments = attribute.arguments?.as(LabeledExprListSyntax.self)?.trimmedDescription ?? ""
                switch attribute.attributeName.trimmedDescription {
                case "Attribute", "NimbusData.Attribute": metadata = "NimbusData.Schema.Attribute(\(arguments))"
                case "Relationship", "NimbusData.Relationship": metadata = "NimbusData.Schema.Relationship(\(arguments))"
                default: break
                }
            }
            properties.append(Property(name: name, initializer: binding.initializer?.value.trimmed, metadata: metadata))
        }
        return ModelClass(name: classDecl.name.text, access: access, properties: properties, uniqueness: uniqueness, indexes: indexes)
    }

    /// The name of a persisted property, or nil for what `@Model` leaves alone: static and
    /// computed properties, `@Transient` ones and the macro's own members (`_$…`).
    static func persistedName(_ variable: VariableDeclSyntax) -> String? {
        let modifiers = variable.modifiers.map(\.name.text)
        if modifiers.contains("static") || modifiers.contains("class") || modifiers.contains("lazy") { return nil }
        guard variable.bindings.count == 1, let binding = variable.bindings.first,
              let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else { return nil }
        if let accessors = binding.accessorBlock {
            guard case let .accessors(list) = accessors.accessors,
                  list.allSatisfy({ ["willSet", "didSet"].contains($0.accessorSpecifier.text) }) else { return nil }
        }
        let name = identifier.identifier.text
        if name.hasPrefix("_$") || name.hasPrefix("$") { return nil }
        for element in variable.attributes {
            guard case let .attribute(attribute) = element else { continue }
            let attributeName = attribute.attributeName.trimmedDescription
            if attributeName == "Transient" || attributeName == "NimbusData.Transient"
                || attributeName == "ObservationIgnored" { return nil }
        }
        return name
    }

    /// `[\.a, \.b], [\.c]` → `[["a", "b"], ["c"]]`; `\Trip.a` names `a` too.
    static func keyPathLists(_ arguments: LabeledExprListSyntax) -> [[String]] {
        arguments.compactMap { argument in
            guard let array = argument.expression.as(ArrayExprSyntax.self) else { return nil }
            return array.elements.compactMap { element in
                element.expression.as(KeyPathExprSyntax.self)?.components.last?.component
                    .as(KeyPathPropertyComponentSyntax.self)?.declName.baseName.text
            }
        }
    }

    /// The members `@Model` adds.
    var members: [DeclSyntax] {
        let metadata = properties.map { property in
            let defaultValue = property.initializer.map { ", defaultValue: \($0)" } ?? ""
            return "        NimbusData.Schema.PropertyMetadata(name: \"\(property.name)\", keypath: \\\(name).\(property.name)\(defaultValue), metadata: \(property.metadata))"
        }.joined(separator: ",\n")
        let cases = properties.map { "        case \\\(name).\($0.name): return \"\($0.name)\"" }.joined(separator: "\n")
        let notifications = properties.map {
            "    if keys.contains(\"\($0.name)\") { _$observationRegistrar.withMutation(of: self, keyPath: \\.\($0.name)) {} }"
        }.joined(separator: "\n")
        func literal(_ lists: [[String]]) -> String {
            "[" + lists.map { "[" + $0.map { "\"\($0)\"" }.joined(separator: ", ") + "]" }.joined(separator: ", ") + "]"
        }
        let slots = properties.map { "\n    \(PersistedPropertyMacro.slotName($0.name)) = NimbusData._PersistedSlot()" }.joined()
        return [
            "private var _$backingData = NimbusData._ModelBacking()",
            "private let _$observationRegistrar = NimbusData._ObservationRegistrar()",
            "\(raw: access)var _nimbusBacking: NimbusData._ModelBacking { _$backingData }",
            """
            \(raw: access)required init(backingData: NimbusData._ModelBacking) {
                self._$backingData = backingData\(raw: slots)
            }
            """,
            """
            \(raw: access)static var schemaMetadata: [NimbusData.Schema.PropertyMetadata] {
                [
            \(raw: metadata)
                ]
            }
            """,
            "\(raw: access)static var _nimbusUniqueness: [[String]] { \(raw: literal(uniqueness)) }",
            "\(raw: access)static var _nimbusIndexes: [[String]] { \(raw: literal(indexes)) }",
            """
            \(raw: access)static func propertyName(for keyPath: AnyKeyPath) -> String? {
                switch keyPath {
            \(raw: cases)
                default: return nil
                }
            }
            """,
            """
            \(raw: access)func _nimbusNotifyObservers(_ keys: Set<String>) {
            \(raw: notifications)
            }
            """,
        ]
    }
}

/// What `@Model` reports.
enum ModelDiagnostic: String, DiagnosticMessage {
    case notAClass

    static func constant(_ name: String) -> ConstantMessage { ConstantMessage(name: name) }

    var message: String {
        switch self {
        case .notAClass: "@Model applies to a class (final class Trip { … })"
        }
    }
    var diagnosticID: MessageID { MessageID(domain: "NimbusData", id: rawValue) }
    var severity: DiagnosticSeverity { .error }

    struct ConstantMessage: DiagnosticMessage {
        let name: String
        var message: String { "@Model stores var properties; '\(name)' is a let constant: declare it var, or mark it @Transient" }
        var diagnosticID: MessageID { MessageID(domain: "NimbusData", id: "constant") }
        var severity: DiagnosticSeverity { .error }
    }
}
