import SwiftSyntax
import SwiftSyntaxMacros

/// `@Guide` marks a property for `@Generable`, which reads its arguments; it expands to nothing.
public struct GuideMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}
