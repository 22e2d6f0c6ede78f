import ArgumentParser
import Foundation
import LocalLMEngine
import LocalLMJinja
import LocalLMRuntime
import LocalLMTokenizers

/// Loading and prompt handling shared by `generate`, `logits` and `bench`.
enum ModelLoading {
    static func load(_ path: String, threads: Int?) throws -> TransformerModel {
        try TransformerModel(contentsOf: URL(fileURLWithPath: path), threadCount: threads)
    }

    /// `--raw` tokenization: text verbatim, specials parsed, BOS by the model's `add_bos_token`
    /// (llama_tokenize(add_special: true, parse_special: true)).
    static func rawIds(_ text: String, tokenizer: Tokenizer) -> [Int] {
        tokenizer.encode(text, addSpecial: true, parseSpecial: true).map(Int.init)
    }

    /// The prompt as a user message rendered with the model's chat template (with the generation
    /// prompt), tokenized as sessions tokenize it (`Tokenizer.promptTokens(rendered:)`: specials parsed,
    /// BOS by the model's rule unless the template already wrote it).
    static func chatIds(_ text: String, model: TransformerModel, tokenizer: Tokenizer) throws -> [Int] {
        let template = try ModelChatTemplate(gguf: model.file)
        let rendered = try template.render(context: [
            "messages": .array([.object(JinjaObject([("role", .string("user")), ("content", .string(text))]))]),
            "add_generation_prompt": .bool(true),
        ])
        return tokenizer.promptTokens(rendered: rendered)
    }

    static func parseIds(_ list: String) throws -> [Int] {
        try list.split(separator: ",").map { part -> Int in
            guard let id = Int(part.trimmingCharacters(in: .whitespaces)) else { throw ValidationError("bad token id '\(part)'") }
            return id
        }
    }
}

/// JSON string escaping for the one-line outputs.
func jsonString(_ s: String) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    let data = (try? encoder.encode(s)) ?? Data("\"\"".utf8)
    return String(decoding: data, as: UTF8.self)
}
