@testable import LocalLM
import Foundation
import InMemoryLogging
import LocalLMTestSupport
import Logging
import Testing

/// What a session tells about its requests: usage that shows the KV cache at work over a growing
/// conversation, and swift-log records that trace every request (quiet unless asked).
@Suite("Session cache reuse and request tracing", .serialized)
struct SessionObservabilityTests {
    let model: SystemLanguageModel
    let greedy = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 8)

    init() throws {
        model = SystemLanguageModel(contentsOf: try TestModels.require(TestModels.smolLM2))
    }

    /// A session whose loggers write to `handler`.
    func session(logging handler: InMemoryLogHandler) -> LanguageModelSession {
        LogHandlerOverride.with({ _ in handler }) {
            LanguageModelSession(model: model, instructions: "You are a concise assistant.")
        }
    }

    static func integer(_ entry: InMemoryLogHandler.Entry, _ key: String) -> Int? {
        entry.metadata[key].flatMap { Int("\($0)") }
    }

    @Test func turnFivePrefillsOnlyItsNewTokens() async throws {
        var handler = InMemoryLogHandler()
        handler.logLevel = .debug
        let session = session(logging: handler)
        let prompts = ["My name is Ana.", "I live in Porto.", "I like green tea.", "My cat is Rui.", "What is my name?"]
        var previous: LanguageModelSession.Usage?
        var uncachedHistory: [Int] = []
        for (turn, prompt) in prompts.enumerated() {
            let history = session.transcript
            let historyTokens = try await model.tokenCount(for: history)
            handler.clear()
            let response = try await session.respond(to: prompt, options: greedy)
            let usage = response.usage
            let generated = try #require(handler.entries.first { $0.message == "generated" }, "no engine record")
            let prefilled = try #require(Self.integer(generated, "prefilledTokens"))
            // The runtime evaluated exactly the tokens the cache did not hold.
            #expect(prefilled == usage.inputTokenCount - usage.cachedInputTokenCount, "turn \(turn + 1)")
            #expect(Self.integer(generated, "cachedTokens") == usage.cachedInputTokenCount)
            if let previous {
                // Everything the model read or wrote on the previous turn is reused…
                #expect(usage.cachedInputTokenCount == previous.inputTokenCount + previous.outputTokenCount, "turn \(turn + 1)")
                // …which is the whole history but its end-of-turn marker: the model chose that
                // token (it ends generation) but never evaluated it.
                uncachedHistory.append(historyTokens - usage.cachedInputTokenCount)
            }
            if turn == prompts.count - 1 {
                // Turn 5 prefills its own prompt (and that marker), a small part of its history.
                #expect(prefilled * 3 < historyTokens, "prefilled \(prefilled) of \(usage.inputTokenCount); history \(historyTokens)")
            }
            previous = usage
        }
        // The part of the history that is not cached does not grow with it.
        #expect(uncachedHistory.count == 4)
        #expect(Set(uncachedHistory).count == 1, "\(uncachedHistory)")
        #expect(uncachedHistory.allSatisfy { $0 >= 0 && $0 <= 2 }, "\(uncachedHistory)")
    }

    @Test func everyRequestIsTracedWhenAHandlerListens() async throws {
        var handler = InMemoryLogHandler()
        handler.logLevel = .trace
        let session = session(logging: handler)
        let response = try await session.respond(to: "Name a color.", options: greedy)
        let entries = handler.entries
        let byMessage = Dictionary(entries.map { ("\($0.message)", $0) }, uniquingKeysWith: { first, _ in first })

        let started = try #require(byMessage["request started"])
        #expect("\(started.metadata["prompt"] ?? "")" == "Name a color.")
        let rendered = try #require(byMessage["rendered prompt"])
        let text = "\(rendered.metadata["prompt"] ?? "")"
        // The prompt as the chat template rendered it: system message, user turn, assistant header.
        #expect(text.contains("<|im_start|>system\nYou are a concise assistant.<|im_end|>"))
        #expect(text.hasSuffix("<|im_start|>user\nName a color.<|im_end|>\n<|im_start|>assistant\n"))
        #expect("\(rendered.metadata["tokens"] ?? "")".hasPrefix("["))
        let output = try #require(byMessage["output tokens"])
        let ids = "\(output.metadata["tokens"] ?? "")".dropFirst().dropLast().split(separator: ",")
        #expect(ids.count == response.usage.outputTokenCount)

        let generated = try #require(byMessage["generated"])
        #expect(Self.integer(generated, "promptTokens") == response.usage.inputTokenCount)
        #expect(Self.integer(generated, "outputTokens") == response.usage.outputTokenCount)
        for timing in ["timeToFirstToken", "prefill", "decode"] {
            #expect("\(generated.metadata[timing] ?? "")".hasSuffix("seconds"), "\(timing)")
        }
        let finished = try #require(byMessage["request finished"])
        #expect(Self.integer(finished, "outputTokens") == response.usage.outputTokenCount)
        #expect("\(finished.metadata["elapsed"] ?? "")".hasSuffix("seconds"))
        // One request id on every record, session's and engine's alike.
        let ids2 = Set(entries.compactMap { $0.metadata["request"].map { "\($0)" } })
        #expect(ids2.count == 1 && entries.allSatisfy { $0.metadata["request"] != nil })
    }

    @Test func quietByDefault() async throws {
        // swift-log's default level is .info; LocalLM traces at .debug and .trace only.
        let handler = InMemoryLogHandler()
        #expect(handler.logLevel == .info)
        let session = session(logging: handler)
        _ = try await session.respond(to: "Name a color.", options: greedy)
        #expect(handler.entries.isEmpty, "\(handler.entries.map(\.message))")
    }
}
