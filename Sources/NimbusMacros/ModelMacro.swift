import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// NimbusData's `@Model`: each persisted stored property becomes accessors of the model's
/// backing (through `@_PersistedProperty`), and the class gets its schema metadata, key-path
/// naming for `#Predicate`, observation, and conformance to `PersistentModel`.
public struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let model = ModelClass.read(node, declaration, reporting: context) else { return [] }
        return model.members
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard declaration.is(ClassDeclSyntax.self), let variable = member.as(VariableDeclSyntax.self),
              variable.bindingSpecifier.tokenKind == .keyword(.var),
              ModelClass.persistedName(variable) != nil else { return [] }
        return ["@_PersistedProperty"]
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self), !protocols.isEmpty else { return [] }
        let list = protocols.map(\.trimmedDescription).joined(separator: ", ")
        return [try ExtensionDeclSyntax("extension \(type.trimmed): \(raw: list) {}")]
    }
}

/// `@_PersistedProperty`: a stored property of a `@Model` class becomes accessors that read
/// and write the model's backing (values held until the model is inserted, then its
/// managed object) and tell observers.
public struct PersistedPropertyMacro: AccessorMacro, PeerMacro {
    /// The stored property that marks a persisted property as initialized (definite
    /// initialization asks for it in `init(backingData:)` too).
    static func slotName(_ property: String) -> String { "_$persisted_" + property }

    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self), let name = ModelClass.persistedName(variable) else { return [] }
        return ["private var \(raw: slotName(name)): NimbusData._PersistedSlot"]
    }

    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self), let name = ModelClass.persistedName(variable) else { return [] }
        return [
            """
            @storageRestrictions(initializes: \(raw: slotName(name)), accesses: _$backingData)
            init(initialValue) {
                _$backingData.setInitialValue(initialValue, forKey: \(literal: name))
                \(raw: slotName(name)) = NimbusData._PersistedSlot()
            }
            """,
            """
            get {
                _$observationRegistrar.access(self, keyPath: \\.\(raw: name))
                return _$backingData.getValue(forKey: \(literal: name), of: self)
            }
            """,
            """
            set {
                _$observationRegistrar.withMutation(of: self, keyPath: \\.\(raw: name)) {
                    _$backingData.setValue(newValue, forKey: \(literal: name), of: self)
                }
            }
            """,
        ]
    }
}

/// `@Attribute`, `@Relationship`, `@Transient` of NimbusData: markers that `@Model` reads.
public struct ModelMarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}

/// `#Unique<T>(…)` and `#Index<T>(…)`: declarations that `@Model` reads; they add nothing.
public struct ModelEntityOptionMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}
