import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@SessionPropertyEntry var toolCallCount: Int = 0` inside `extension SessionPropertyValues`:
/// turns the declaration into a computed property that reads and writes the session's value
/// through a private key type (a peer) whose `defaultValue` is the initializer, the way SwiftUI's
/// `@Entry` declares environment values.
public struct SessionPropertyEntryMacro: AccessorMacro, PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        // Diagnostics are reported by the peer expansion only, so each problem is reported once.
        guard let entry = SessionPropertyEntry.read(declaration, diagnose: { _ in }) else { return [] }
        return [
            "get { self[\(raw: entry.keyName).self] }",
            "set { self[\(raw: entry.keyName).self] = newValue }",
        ]
    }

    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let entry = SessionPropertyEntry.read(declaration, diagnose: context.diagnose) else { return [] }
        return [
            """
            private struct \(raw: entry.keyName): SessionPropertyKey {
                static var defaultValue: \(raw: entry.type) {
                    \(raw: entry.defaultValue)
                }
            }
            """
        ]
    }
}

/// What `@SessionPropertyEntry` reads off the declaration.
struct SessionPropertyEntry {
    let name: String
    let type: String
    let defaultValue: String

    var keyName: String { "__Key_" + name }

    static func read(_ declaration: some DeclSyntaxProtocol, diagnose: (Diagnostic) -> Void) -> SessionPropertyEntry? {
        guard let variable = declaration.as(VariableDeclSyntax.self) else {
            diagnose(Diagnostic(node: declaration, message: SessionPropertyEntryDiagnostic.notAVariable))
            return nil
        }
        guard variable.bindingSpecifier.tokenKind == .keyword(.var) else {
            diagnose(Diagnostic(node: variable.bindingSpecifier, message: SessionPropertyEntryDiagnostic.notVar))
            return nil
        }
        guard variable.bindings.count == 1, let binding = variable.bindings.first,
            let identifier = binding.pattern.as(IdentifierPatternSyntax.self)
        else {
            diagnose(Diagnostic(node: variable, message: SessionPropertyEntryDiagnostic.oneName))
            return nil
        }
        if variable.modifiers.contains(where: { $0.name.tokenKind == .keyword(.static) }) {
            diagnose(Diagnostic(node: variable, message: SessionPropertyEntryDiagnostic.isStatic))
            return nil
        }
        if binding.accessorBlock != nil {
            diagnose(Diagnostic(node: binding, message: SessionPropertyEntryDiagnostic.hasAccessors))
            return nil
        }
        let name = identifier.identifier.trimmedDescription
        guard let type = binding.typeAnnotation?.type else {
            diagnose(Diagnostic(node: binding, message: SessionPropertyEntryDiagnostic.missingType(name)))
            return nil
        }
        let defaultValue: String
        if let initializer = binding.initializer {
            defaultValue = initializer.value.trimmedDescription
        } else if type.is(OptionalTypeSyntax.self) || type.trimmedDescription.hasPrefix("Optional<") {
            defaultValue = "nil"
        } else {
            diagnose(Diagnostic(node: binding, message: SessionPropertyEntryDiagnostic.missingDefault(name)))
            return nil
        }
        return SessionPropertyEntry(name: name, type: type.trimmedDescription, defaultValue: defaultValue)
    }
}

enum SessionPropertyEntryDiagnostic: DiagnosticMessage {
    case notAVariable, notVar, oneName, isStatic, hasAccessors
    case missingType(String)
    case missingDefault(String)

    var message: String {
        switch self {
        case .notAVariable: "@SessionPropertyEntry applies to a property in an extension of SessionPropertyValues"
        case .notVar: "@SessionPropertyEntry needs a 'var', because session properties are written as well as read"
        case .oneName: "@SessionPropertyEntry declares one property at a time"
        case .isStatic: "@SessionPropertyEntry applies to an instance property, not a static one"
        case .hasAccessors: "@SessionPropertyEntry writes the accessors itself; remove the property's get/set or observers"
        case .missingType(let name): "session property '\(name)' needs an explicit type annotation"
        case .missingDefault(let name): "session property '\(name)' needs a default value, as in 'var \(name): Int = 0'"
        }
    }

    var diagnosticID: MessageID {
        let id =
            switch self {
            case .notAVariable: "notAVariable"
            case .notVar: "notVar"
            case .oneName: "oneName"
            case .isStatic: "isStatic"
            case .hasAccessors: "hasAccessors"
            case .missingType: "missingType"
            case .missingDefault: "missingDefault"
            }
        return MessageID(domain: "LocalLMMacros.SessionPropertyEntry", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}
