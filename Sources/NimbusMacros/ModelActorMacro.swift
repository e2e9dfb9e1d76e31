import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// NimbusData's `@ModelActor`: an actor with a model container and a context of its own
/// (`modelContainer`, `modelExecutor`, `init(modelContainer:)`, conformance to `ModelActor`).
public struct ModelActorMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let actor = declaration.as(ActorDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ModelActorDiagnostic()))
            return []
        }
        let modifiers = actor.modifiers.map(\.name.text)
        let access = modifiers.contains("public") ? "public " : modifiers.contains("package") ? "package " : ""
        return [
            "\(raw: access)nonisolated let modelExecutor: any NimbusData.ModelExecutor",
            "\(raw: access)nonisolated let modelContainer: NimbusData.ModelContainer",
            """
            \(raw: access)init(modelContainer: NimbusData.ModelContainer) {
                let modelContext = NimbusData.ModelContext(modelContainer)
                self.modelExecutor = NimbusData.DefaultSerialModelExecutor(modelContext: modelContext)
                self.modelContainer = modelContainer
            }
            """,
        ]
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self), !protocols.isEmpty else { return [] }
        let list = protocols.map(\.trimmedDescription).joined(separator: ", ")
        return [try ExtensionDeclSyntax("extension \(type.trimmed): \(raw: list) {}")]
    }
}

struct ModelActorDiagnostic: DiagnosticMessage {
    var message: String { "@ModelActor applies to an actor (actor DataHandler { … })" }
    var diagnosticID: MessageID { MessageID(domain: "NimbusData", id: "modelActorNotActor") }
    var severity: DiagnosticSeverity { .error }
}
