import Foundation
import Testing
import LocalLMTestSupport
@testable import LocalLMGrammar

/// Whole-string match: every byte accepted and the grammar can end.
func matches(_ grammar: CompiledGrammar, _ text: String) -> Bool {
    var m = GrammarMatcher(grammar)
    return m.accept(bytes: Array(text.utf8)) && m.canTerminate
}

struct IntegrationCase: Decodable, Sendable, CustomTestStringConvertible {
    let name: String
    let kind: String
    let source: String
    let unsupported: [String]
    let pass: [String]
    let fail: [String]
    var testDescription: String { "\(kind): \(name)" }
}

enum GrammarFixtures {
    static func integrationCases() throws -> [IntegrationCase] {
        try JSONDecoder().decode([IntegrationCase].self, from: Fixtures.data("grammar/integration_cases.json"))
    }

    static var integrationCasesOrEmpty: [IntegrationCase] { (try? integrationCases()) ?? [] }
}

/// Removes the named keywords everywhere in a schema.
func stripping(_ keys: [String], from value: JSONValue) -> JSONValue {
    switch value {
    case .object(let m): return .object(m.filter { !keys.contains($0.0) }.map { ($0.0, stripping(keys, from: $0.1)) })
    case .array(let a): return .array(a.map { stripping(keys, from: $0) })
    default: return value
    }
}
