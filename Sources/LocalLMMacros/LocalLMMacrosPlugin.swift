import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin entry point: lists the macros `LocalLM` declares with `#externalMacro`.
@main
struct LocalLMMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [GenerableMacro.self, GuideMacro.self, SessionPropertyEntryMacro.self]
}
