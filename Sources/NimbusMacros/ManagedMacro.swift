import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Managed`: typed accessors for each stored property (through `@_ManagedProperty`), the
/// entity description, the key-path naming for `#Predicate`, and the conformance to
/// `ManagedEntityClass`.
public struct ManagedMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let managed = ManagedClass.read(node, declaration, reporting: context) else { return [] }
        return managed.members
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        // Diagnostics are reported once, by the member expansion.
        guard let variable = member.as(VariableDeclSyntax.self),
              case let .property(property) = StoredProperty.read(variable),
              let managed = ManagedClass.read(node, declaration, reporting: nil),
              let ordinal = managed.properties.firstIndex(where: { $0.name == property.name }) else { return [] }
        return ["@_ManagedProperty(slot: \(managed.slot(ordinal)))"]
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        // A subclass of a @Managed class conforms already (the compiler then asks for nothing).
        guard !protocols.isEmpty, ManagedClass.read(node, declaration, reporting: nil) != nil else { return [] }
        let list = protocols.map(\.trimmedDescription).joined(separator: ", ")
        return [try ExtensionDeclSyntax("extension \(type.trimmed): \(raw: list) {}")]
    }
}

/// `@_ManagedProperty(slot:)`: a stored property becomes accessors of the object's storage.
/// An initial value stays legal through an `init` accessor that ignores it: new objects
/// start from the entity's default value, which the initial value declared. An attribute of
/// a built-in type reads the copy `@Managed` keeps in the object while it is current.
public struct ManagedPropertyMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self), let binding = variable.bindings.first,
              let slot = node.arguments?.as(LabeledExprListSyntax.self)?.first?.expression else { return [] }
        var accessors: [AccessorDeclSyntax] = []
        if binding.initializer != nil {
            accessors.append("init(initialValue) {}")
        }
        if case let .property(property) = StoredProperty.read(variable), property.copiedType != nil {
            let copy = StoredProperty.copyName(property.name)
            accessors.append("""
                get {
                    _prepareTypedValues(\(literal: property.name))
                    return \(raw: copy)
                }
                """)
        } else {
            accessors.append("get { managedValue(slot: \(slot.trimmed)) }")
        }
        accessors.append("set { setManagedValue(newValue, slot: \(slot.trimmed)) }")
        return accessors
    }
}

/// `@Attribute` and `@Relationship`: markers that `@Managed` reads; they add nothing.
public struct ManagedOptionsMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard declaration.is(VariableDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ManagedDiagnostic.optionsOutsideManaged))
            return []
        }
        return []
    }
}
