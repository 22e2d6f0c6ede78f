/// How a model family marks its reasoning, read off its chat template: `<think>`…`</think>` before
/// the answer (Qwen3, QwQ, DeepSeek-R1), and whether the template has a switch
/// (`enable_thinking`) that turns it on and off.
package struct ReasoningFormat: Sendable, Equatable {
    package let open: String
    package let close: String
    /// Whether the template reads `enable_thinking`.
    package let switchable: Bool

    /// The format of a template, or `nil` when it knows no reasoning markers.
    package init?(templateSource source: String) {
        guard source.contains("</think>") else { return nil }
        open = "<think>"
        close = "</think>"
        switchable = source.contains("enable_thinking")
    }

    /// Whether a rendered prompt leaves the model inside its reasoning already (templates that end
    /// the generation prompt with the opening marker).
    package func startsInside(prompt: String) -> Bool {
        var end = prompt[...]
        while let last = end.last, last.isWhitespace { end = end.dropLast() }
        return end.hasSuffix(open)
    }
}

/// Splits generated text into reasoning and answer as it streams: text between the opening and the
/// closing marker is reasoning, the rest is the answer. A marker split across tokens is held back
/// until it is whole, and so are the newlines that templates write around the reasoning
/// (`<think>\n…\n</think>\n\n`), so neither part starts or ends with them.
package struct ReasoningSplitter: Sendable {
    private enum State { case beforeReasoning, reasoningStart, reasoning, answerStart, answer }

    private let format: ReasoningFormat
    private var state: State
    private var pending = ""

    package init(format: ReasoningFormat, startsInside: Bool) {
        self.format = format
        state = startsInside ? .reasoningStart : .beforeReasoning
    }

    /// Whether the reasoning has ended (the closing marker was generated, or the model answered
    /// without reasoning).
    package var isAnswering: Bool { state == .answerStart || state == .answer }

    /// The reasoning and answer text that `text` completes.
    package mutating func append(_ text: String) -> (reasoning: String, answer: String) {
        pending += text
        var reasoning = ""
        var answer = ""
        while true {
            switch state {
            case .beforeReasoning:
                let trimmed = pending.drop { $0.isWhitespace }
                if trimmed.hasPrefix(format.open) {
                    pending = String(trimmed.dropFirst(format.open.count))
                    state = .reasoningStart
                    continue
                }
                if trimmed.isEmpty || format.open.hasPrefix(trimmed) { return (reasoning, answer) }
                state = .answer
                continue
            case .reasoningStart:
                pending = String(pending.drop { $0.isNewline })
                if pending.isEmpty { return (reasoning, answer) }
                state = .reasoning
                continue
            case .reasoning:
                if let range = pending.range(of: format.close) {
                    reasoning += Self.trimmingTrailingNewlines(pending[..<range.lowerBound])
                    pending = String(pending[range.upperBound...])
                    state = .answerStart
                    continue
                }
                // Keep back what may be the start of the closing marker, and trailing newlines.
                let keep = Self.heldBack(pending, marker: format.close)
                reasoning += pending.dropLast(keep)
                pending = String(pending.suffix(keep))
                return (reasoning, answer)
            case .answerStart:
                pending = String(pending.drop { $0.isNewline })
                if pending.isEmpty { return (reasoning, answer) }
                state = .answer
                continue
            case .answer:
                answer += pending
                pending = ""
                return (reasoning, answer)
            }
        }
    }

    /// What is left when generation ends: reasoning that never closed stays reasoning.
    package mutating func finish() -> (reasoning: String, answer: String) {
        defer { pending = "" }
        switch state {
        case .reasoning: return (Self.trimmingTrailingNewlines(pending[...]), "")
        case .beforeReasoning, .answer: return ("", pending)
        case .reasoningStart, .answerStart: return ("", "")
        }
    }

    /// How many trailing characters of `text` to hold back: a proper prefix of `marker` it ends
    /// with, and the newlines before that.
    private static func heldBack(_ text: String, marker: String) -> Int {
        var keep = 0
        for length in stride(from: min(marker.count - 1, text.count), through: 1, by: -1)
        where text.hasSuffix(marker.prefix(length)) {
            keep = length
            break
        }
        for character in text.dropLast(keep).reversed() {
            guard character.isNewline else { break }
            keep += 1
        }
        return keep
    }

    private static func trimmingTrailingNewlines(_ text: Substring) -> String {
        var end = text
        while let last = end.last, last.isNewline { end = end.dropLast() }
        return String(end)
    }
}
