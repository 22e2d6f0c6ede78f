import SwiftDiagnostics

/// Errors `@Generable` reports at the declaration, so that the fix is clear where it is needed.
enum GenerableDiagnostic: DiagnosticMessage {
    case notStructOrEnum(String)
    case noCases(String)
    case missingType(String)
    case unsupportedType(String)
    case unsupportedPattern

    var message: String {
        switch self {
        case .notStructOrEnum(let kind):
            "@Generable applies to a struct or an enum, not to a \(kind)"
        case .noCases(let name):
            "@Generable enum '\(name)' has no cases to generate"
        case .missingType(let name):
            "property '\(name)' of a @Generable type needs an explicit type annotation"
        case .unsupportedType(let reason):
            "\(reason)"
        case .unsupportedPattern:
            "@Generable properties must be declared one name at a time, not with a tuple pattern"
        }
    }

    var diagnosticID: MessageID {
        let id: String = switch self {
        case .notStructOrEnum: "notStructOrEnum"
        case .noCases: "noCases"
        case .missingType: "missingType"
        case .unsupportedType: "unsupportedType"
        case .unsupportedPattern: "unsupportedPattern"
        }
        return MessageID(domain: "LocalLMMacros", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}
