import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that provides Nimbus's macros.
@main
struct NimbusMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        ManagedMacro.self,
        ManagedPropertyMacro.self,
        ManagedOptionsMacro.self,
        ModelMacro.self,
        PersistedPropertyMacro.self,
        ModelMarkerMacro.self,
        ModelEntityOptionMacro.self,
        ModelActorMacro.self,
    ]
}
