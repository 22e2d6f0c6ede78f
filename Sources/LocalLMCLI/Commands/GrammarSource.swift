import ArgumentParser
import Foundation
import LocalLMEngine
import LocalLMGrammar
import LocalLMRuntime

/// Where `generate`'s grammar comes from: a JSON Schema file, a GBNF file or a regex argument.
enum GrammarSource {
    case jsonSchema(path: String)
    case gbnf(path: String, root: String)
    case regex(String)

    init?(jsonSchema: String?, gbnf: String?, root: String, regex: String?) {
        if let jsonSchema { self = .jsonSchema(path: jsonSchema) }
        else if let gbnf { self = .gbnf(path: gbnf, root: root) }
        else if let regex { self = .regex(regex) }
        else { return nil }
    }

    /// A grammar that cannot be read or compiled: where it came from, and the compiler's message
    /// with its position.
    struct Failure: Error, CustomStringConvertible {
        let source: String
        let message: String
        var description: String { "\(source): \(message)" }
    }

    func compile() throws -> CompiledGrammar {
        switch self {
        case .jsonSchema(let path):
            let text = try Self.read(path)
            do { return try CompiledGrammar(jsonSchema: text) } catch { throw Failure(source: path, message: error.description) }
        case .gbnf(let path, let root):
            let text = try Self.read(path)
            do { return try CompiledGrammar(gbnf: text, root: root) } catch { throw Failure(source: path, message: error.description) }
        case .regex(let pattern):
            do { return try CompiledGrammar(regex: pattern) } catch { throw Failure(source: "--regex", message: error.description) }
        }
    }

    private static func read(_ path: String) throws -> String {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: (path as NSString).expandingTildeInPath))
        } catch {
            throw Failure(source: path, message: "cannot read the file (\((error as NSError).localizedDescription))")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw Failure(source: path, message: "not UTF-8 text") }
        return text
    }

    /// Output that is not a whole sentence of the grammar (cut by the token limit, or no token
    /// allowed) is reported on stderr with exit status 2; it has already been printed.
    static func checkComplete(_ result: GenerationResult, _ grammar: CompiledGrammar, maxTokens: Int) throws {
        var matcher = GrammarMatcher(grammar)
        if matcher.accept(bytes: Array(result.text.utf8)) && matcher.canTerminate { return }
        let why: String
        switch result.stopReason {
        case .maxTokens: why = "stopped after \(maxTokens) tokens (--max-tokens) before the grammar was complete"
        case .noAllowedToken: why = "the grammar allowed no token of this model's vocabulary"
        default: why = "stopped (\(result.stopReason)) before the grammar was complete"
        }
        FileHandle.standardError.write(Data("\nlocallm generate: \(why)\n".utf8))
        throw ExitCode(2)
    }
}
