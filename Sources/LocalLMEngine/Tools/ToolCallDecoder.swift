import LocalLMGrammar
import LocalLMJSON

/// One request's tool calling on top of the generation loop: the grammar mask to put first in the
/// sampler chain, and what the generated text means (free text to stream, or calls).
///
/// - `.allowed`: a lazy grammar of one call in any form the family uses (``ToolCallFormat``). Free
///   text streams, except what may still be the opening of a call. Once a call is complete, the
///   grammar switches to "more calls or the end", so several calls can be made in one round
///   (parallel calls) and a small model cannot ramble on after its call.
/// - `.required`: from the first token, one or more calls in the family's own form.
/// - `.disallowed`: a lazy grammar of nothing with the family's opener and, at the turn's start, a
///   bare `{` or a fence holding one (``ToolCallFormat/disallowedStartTriggers``), so a token that
///   would open a call is refused and the model writes something else.
///
/// Per request; the compiled grammars are cached by the engine.
package final class ToolCallDecoder {
    package let format: ToolCallFormat
    package let mode: ToolCallMode
    /// The sampler chain's grammar step.
    package let grammar: GrammarMask
    private let more: GrammarTokenIndex?

    private enum Phase { case free, call, more }
    private var phase: Phase
    /// Free output (before any call).
    private var text = ""
    /// Characters of `text` already streamed.
    private var streamed = 0
    /// The calls' text, from the first call's first byte.
    private var callText = ""
    /// Characters of `callText` that hold complete calls only.
    private var completeCount = 0
    /// Whether a call that repeats one made earlier in the same reply (same name, same arguments)
    /// ends the reply there, without it: a small model that has made its calls tends to write them
    /// again and again until the budget ends (Qwen2.5-Coder-0.5B wrote a round of three calls four
    /// times over). Off for tools whose identical calls mean something (a die rolled twice).
    package var endsRepeatedCalls = false
    /// A repeated call ended the reply (``endsRepeatedCalls``).
    private var repeated = false

    package init(engine: GGUFEngine, tools: [ChatTool], mode: ToolCallMode, format: ToolCallFormat) throws(EngineError) {
        self.format = format
        self.mode = mode
        // The grammar depends on the names and the enforced schemas only.
        let key = "tools:" + format.family.rawValue + ":"
            + tools.map { ChatRenderer.pythonJSON(.array([.string($0.name), $0.parameters])) }.joined(separator: "\n")
        func index(_ kind: String, _ grammar: () throws(GrammarError) -> Grammar) throws(EngineError) -> GrammarTokenIndex {
            do {
                return try engine.grammarIndex(key: key + ":" + kind) { try CompiledGrammar(grammar()) }
            } catch let error as GrammarError {
                throw .grammar(error)
            } catch {
                throw .grammar(.tooLarge(message: "\(error)"))
            }
        }
        let triggers = GrammarConstraint.Activation.lazyFromTrigger(anywhere: format.anywhereTriggers, atStart: format.startTriggers)
        switch mode {
        case .allowed:
            let one = try index("one") { () throws(GrammarError) in try format.grammar(for: tools, .one) }
            more = try index("more") { () throws(GrammarError) in try format.grammar(for: tools, .more) }
            grammar = GrammarMask(GrammarConstraint(one, activation: triggers))
            phase = .free
        case .required:
            let required = try index("required") { () throws(GrammarError) in try format.grammar(for: tools, .required) }
            more = nil
            grammar = GrammarMask(GrammarConstraint(required, activation: .required))
            phase = .more
        case .disallowed:
            let nothing = try index("nothing") { () throws(GrammarError) in Grammar.nothing }
            more = nil
            grammar = GrammarMask(GrammarConstraint(nothing, activation: .lazyFromTrigger(
                anywhere: format.anywhereTriggers, atStart: format.disallowedStartTriggers)))
            phase = .free
        }
    }

    /// A call is being written: its text so far.
    package var partialCall: String? { phase == .free ? nil : callText }

    /// Generation should stop: the calls are complete and the grammar takes nothing more, or a call
    /// repeated one of the reply (``endsRepeatedCalls``).
    package var isFinished: Bool { phase == .more && (grammar.isCompleted || repeated) }

    /// Takes the text of the token just generated (and accepted by ``grammar``); returns the text
    /// that can be streamed now.
    package func append(_ piece: String) -> String {
        switch phase {
        case .call:
            callText += piece
            // The call is complete when the span is over, or when its grammar can end here (a bare
            // call's JSON grammar would still take trailing whitespace, and nothing else: a second
            // bare call on the next line would be refused).
            let complete = !grammar.isActive || grammar.constraint?.grammarMatcher.canTerminate == true
            if complete, let more {
                // More calls, or the end of the turn.
                grammar.constrain(with: GrammarConstraint(more, activation: .required))
                phase = .more
                completeCount = callText.count
            }
            return ""
        case .more:
            guard !repeated else { return "" }
            callText += piece
            if grammar.constraint?.grammarMatcher.canTerminate == true {
                // A call (or a group of them) is complete: a repeat ends the reply (``finish``
                // keeps the calls before it; a group that completed at once may hold new ones too).
                if endsRepeatedCalls, let calls = try? format.parseCalls(callText), Self.firstRepeat(in: calls) != nil {
                    repeated = true
                    return ""
                }
                completeCount = callText.count
            }
            return ""
        case .free:
            text += piece
            if mode == .allowed && grammar.isActive {
                let start = format.callStart(in: text)
                callText = String(text[start...])
                text = String(text[..<start])
                phase = .call
                return ""
            }
            return sendable()
        }
    }

    /// The index of the first call that repeats an earlier one (same name, same arguments).
    private static func firstRepeat(in calls: [(name: String, arguments: JSONValue)]) -> Int? {
        calls.indices.first { i in calls[..<i].contains { $0.name == calls[i].name && $0.arguments == calls[i].arguments } }
    }

    /// Free text that cannot be the start of a call, not streamed yet.
    private func sendable() -> String {
        var count = text.count
        if mode == .allowed {
            if format.couldStartCall(text) {
                count = 0
            } else if let open = format.opener {
                for length in stride(from: min(open.count - 1, text.count), to: 0, by: -1) where open.hasPrefix(text.suffix(length)) {
                    count = text.count - length
                    break
                }
            }
        }
        guard count > streamed else { return "" }
        let delta = String(text.dropFirst(streamed).prefix(count - streamed))
        streamed = count
        return delta
    }

    /// What the generation produced, once it has stopped (`tail`: the detokenizer's last bytes).
    package enum Outcome: Sendable, Equatable {
        /// Free text: the part not streamed yet.
        case text(String)
        /// Calls, in the order the model wrote them.
        case calls([(name: String, arguments: JSONValue)])

        package static func == (a: Outcome, b: Outcome) -> Bool {
            switch (a, b) {
            case let (.text(x), .text(y)): x == y
            case let (.calls(x), .calls(y)): x.map(\.name) == y.map(\.name) && x.map(\.arguments) == y.map(\.arguments)
            default: false
            }
        }
    }

    /// The outcome of a generation that stopped for `reason`. A call still open when the budget or
    /// the context ran out is an ``EngineError/incompleteToolCall(partial:detail:)``, not text.
    package func finish(stopReason: StopReason?, tail: String) throws(EngineError) -> Outcome {
        switch phase {
        case .free:
            let rest = String(text.dropFirst(streamed)) + tail
            streamed = text.count
            text += tail
            return .text(rest)
        case .call, .more:
            if !repeated { callText += tail }
            // A call is closed when its grammar can end here (a bare call's grammar may still take
            // trailing whitespace, so the lazy span has not switched off by itself).
            var open = !(grammar.constraint?.grammarMatcher.canTerminate ?? true)
            if open && completeCount > 0 {
                // Complete calls, then one the budget cut (a model that goes on calling): the
                // complete ones stand, the cut one is dropped.
                callText = String(callText.prefix(completeCount))
                open = false
            }
            if open {
                throw .incompleteToolCall(
                    partial: callText,
                    detail: "the model opened a tool call and did not close it (\(stopReason.map { "\($0)" } ?? "stopped"))")
            }
            let calls: [(name: String, arguments: JSONValue)]
            do {
                calls = try format.parseCalls(callText)
            } catch {
                throw .malformedToolCall("\(error): \(callText)")
            }
            guard !calls.isEmpty else {
                throw .incompleteToolCall(partial: callText, detail: "the model made no tool call where one was required")
            }
            // A group that completes at once (a list, a fence of several) can hold the repeat.
            if endsRepeatedCalls, let first = Self.firstRepeat(in: calls) { return .calls(Array(calls[..<first])) }
            return .calls(calls)
        }
    }
}
