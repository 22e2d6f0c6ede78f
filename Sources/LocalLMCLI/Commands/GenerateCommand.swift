import ArgumentParser
import Foundation
import LocalLMEngine
import LocalLMGrammar
import LocalLMRuntime

/// `locallm generate`: text from a prompt, streamed to stdout, or one JSON line with --json.
/// With `--json-schema`, `--grammar` or `--regex` every token is masked by the grammar, and what is
/// printed is exactly the constrained output (no newline added).
struct GenerateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate text from a prompt (a user message in the model's chat template unless --raw).",
        discussion: """
            With a grammar the output is exactly a sentence of it, printed without a trailing newline. \
            A grammar that cannot be read or compiled is reported with its position (JSON path, GBNF \
            line:column, regex offset) and exit status 1; output cut by --max-tokens before the grammar \
            is complete is printed, reported on stderr, and exits with status 2.
            """
    )

    @Option(help: "Path to a GGUF model.") var model: String
    @Option(help: "The prompt.") var prompt: String?
    @Option(help: "Comma-separated prompt token ids, used as they are, instead of --prompt.") var ids: String?
    @Flag(help: "Evaluate the prompt in llama.cpp's order of operations, for output identical to llama.cpp's (slower prefill).")
    var llamaCppArithmetic = false
    @Option(help: "Tokens to generate at most.") var maxTokens: Int = 256
    @Option(help: "Sampling temperature; 0 is greedy.") var temperature: Float = 0.8
    @Option(help: "Keep the k most likely tokens (0: all).") var topK: Int = 40
    @Option(help: "Nucleus sampling threshold (1: off).") var topP: Float = 0.95
    @Option(help: "Keep tokens at least this fraction as likely as the best (0: off).") var minP: Float = 0.05
    @Option(help: "Random seed.") var seed: UInt64 = 0
    @Option(help: "Context size in tokens.") var contextSize: Int = 4096
    @Option(help: "Worker threads (default: all cores).") var threads: Int?
    @Option(help: "Stop when the text contains this (repeatable).") var stop: [String] = []
    @Flag(help: "Use the prompt verbatim (specials parsed, BOS by the model's rule) instead of the chat template.")
    var raw = false
    @Flag(help: "Print one line {\"ids\":[…],\"text\":\"…\"} (generated tokens only, without the stop token).")
    var json = false
    @Option(help: ArgumentHelp("Constrain the output to the JSON documents this JSON Schema allows (compact JSON).", valueName: "file.json"))
    var jsonSchema: String?
    @Option(help: ArgumentHelp("Constrain the output to this GBNF grammar (llama.cpp's format).", valueName: "file.gbnf"))
    var grammar: String?
    @Option(help: "The GBNF rule to start from.") var grammarRoot: String = "root"
    @Option(help: "Constrain the output to a whole match of this regular expression.") var regex: String?

    func validate() throws {
        if (prompt == nil) == (ids == nil) { throw ValidationError("give one of --prompt and --ids") }
        if [jsonSchema, grammar, regex].compactMap({ $0 }).count > 1 {
            throw ValidationError("give at most one of --json-schema, --grammar and --regex")
        }
    }

    func run() async throws {
        // Before the model loads: a bad grammar fails fast.
        let constraint = try GrammarSource(jsonSchema: jsonSchema, gbnf: grammar, root: grammarRoot, regex: regex)?.compile()
        let loaded = try ModelLoading.load(model, threads: threads)
        let tokenizer = try loaded.makeTokenizer()
        let ids: [Int]
        if let list = self.ids {
            ids = try ModelLoading.parseIds(list)
        } else {
            let text = prompt ?? ""
            ids = raw ? ModelLoading.rawIds(text, tokenizer: tokenizer)
                : try ModelLoading.chatIds(text, model: loaded, tokenizer: tokenizer)
        }
        let sequence = try loaded.makeSequence(contextSize: min(contextSize, max(ids.count + maxTokens, 1)),
                                               batchArithmetic: llamaCppArithmetic ? .llamaCpp : .fast)
        var options = SamplingOptions()
        options.temperature = temperature
        options.topK = topK
        options.topP = topP
        options.minP = minP
        options.seed = seed
        // The same grammar step and generation loop as sessions use (LocalLMEngine).
        let grammarMask = constraint.map {
            GrammarMask(GrammarConstraint(
                GrammarTokenIndex(grammar: $0, tokens: TokenTable(vocabulary: tokenizer.vocabulary)), activation: .required))
        }
        let generator = TokenGenerator(
            sequence: sequence, tokenizer: tokenizer, sampler: options.makeChain(mask: grammarMask.map { LogitMaskStep($0) }),
            grammar: grammarMask, limits: GenerationLimits(maxTokens: maxTokens, stopStrings: stop))
        let json = self.json
        var streamed = 0  // UTF-8 bytes written so far
        _ = try await generator.prefill(ids, yielding: false)
        let result = try await generator.run { token in
            if !json {
                FileHandle.standardOutput.write(Data(token.text.utf8))
                streamed += token.text.utf8.count
            }
            return true
        }
        // The detokenizer's last bytes (an incomplete UTF-8 sequence when generation stopped inside
        // a character) reach the result's text only at the end; print them too.
        if !json, result.text.utf8.count > streamed {
            FileHandle.standardOutput.write(Data(result.text.utf8.dropFirst(streamed)))
        }
        if json {
            let idList = result.ids.map(String.init).joined(separator: ",")
            print("{\"ids\":[\(idList)],\"text\":\(jsonString(result.text))}")
        } else if constraint == nil {
            print("")
        }
        if let constraint {
            try GrammarSource.checkComplete(result, constraint, maxTokens: maxTokens)
        }
    }
}
