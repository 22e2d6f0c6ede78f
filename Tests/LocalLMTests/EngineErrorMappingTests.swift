import LocalLMEngine
import LocalLMGrammar
import LocalLMJinja
import LocalLMRuntime
import Testing

@testable import LocalLM

/// Every engine, grammar, template and runtime error becomes a documented `LanguageModelError` and
/// `GenerationError`, and the typed error behind it stays reachable as `underlyingError`.
@Suite struct EngineErrorMappingTests {
    enum Expected: String, Sendable {
        case contextSizeExceeded, unsupportedGenerationGuide, decodingFailure, assetsUnavailable
    }

    static let cases: [(EngineError, Expected, String)] = [
        (.contextFull(contextSize: 8, tokenCount: 9, detail: "9 > 8"), .contextSizeExceeded, "EngineError"),
        (.unsupportedModel(file: "x.gguf", .unknownArchitecture("mamba", supported: ["llama"])), .assetsUnavailable, "RuntimeError"),
        (.grammar(.regex(message: "lookahead", offset: 3)), .unsupportedGenerationGuide, "GrammarError"),
        (.template(JinjaError(.type, "roles must alternate", line: 2)), .decodingFailure, "JinjaError"),
        (.runtime(.contextOverflow(position: 4, count: 9, contextSize: 8)), .decodingFailure, "RuntimeError"),
        (.noAllowedToken, .decodingFailure, "EngineError"),
        (.malformedToolCall("{\"name\":"), .decodingFailure, "EngineError"),
    ]

    static func kind(_ error: LanguageModelError) -> Expected? {
        switch error {
        case .contextSizeExceeded: .contextSizeExceeded
        case .unsupportedGenerationGuide: .unsupportedGenerationGuide
        case .decodingFailure: .decodingFailure
        case .assetsUnavailable: .assetsUnavailable
        default: nil
        }
    }

    static func kind(_ error: LanguageModelSession.GenerationError) -> Expected? {
        switch error {
        case .exceededContextWindowSize: .contextSizeExceeded
        case .unsupportedGuide: .unsupportedGenerationGuide
        case .decodingFailure: .decodingFailure
        case .assetsUnavailable: .assetsUnavailable
        default: nil
        }
    }

    static func context(_ error: LanguageModelSession.GenerationError) -> LanguageModelSession.GenerationError.Context? {
        switch error {
        case .exceededContextWindowSize(let c), .unsupportedGuide(let c), .decodingFailure(let c), .assetsUnavailable(let c): c
        default: nil
        }
    }

    @Test(arguments: 0..<cases.count)
    func engineErrorMapsToDocumentedCase(index: Int) throws {
        let (engineError, expected, underlyingType) = Self.cases[index]
        let error = LanguageModelError(engineError, schemaName: "Recipe")
        #expect(Self.kind(error) == expected, "\(engineError)")
        let underlying = try #require(error.underlyingError)
        #expect("\(type(of: underlying))" == underlyingType)
        if case .unsupportedGenerationGuide(let info) = error { #expect(info.schemaName == "Recipe") }
        // What `respond` throws keeps the case and the underlying error.
        let thrown = try #require(LanguageModelSession.publicError(error, entries: []) as? LanguageModelSession.GenerationError)
        #expect(Self.kind(thrown) == expected)
        #expect(Self.context(thrown)?.underlyingError.map { "\(type(of: $0))" } == underlyingType)
        #expect(Self.context(thrown)?.debugDescription == engineError.description)
    }

    @Test func grammarErrorIsReachableTyped() throws {
        let error = LanguageModelError(.grammar(.unsupportedSchemaFeature(feature: "patternProperties", path: "$")))
        #expect(error.underlyingError as? GrammarError == .unsupportedSchemaFeature(feature: "patternProperties", path: "$"))
    }
}
