import Foundation
import LocalLMSync

/// Accumulates the events of one executor call: response text, reasoning, tool calls, usage.
package final class EventCollector: Sendable {
    package struct Accumulated: Sendable {
        var responseID: String?
        var text = ""
        var reasoningID: String?
        var reasoning = ""
        var toolCallsID: String?
        var toolCalls: [Transcript.ToolCall] = []
        var usage = LanguageModelSession.Usage()
        var outputTokens = 0
        var metadata: [String: String] = [:]
    }

    private let state = SanitizableMutex(Accumulated())

    package init() {}

    package var accumulated: Accumulated { state.withLock { $0 } }

    /// Applies an event; returns the cumulative response text when the event added to it.
    package func apply(_ event: LanguageModelExecutorGenerationChannel.Event) -> String? {
        state.withLock { state in
            switch event.kind {
            case .response(let entryID, let action):
                if state.responseID == nil { state.responseID = entryID }
                switch action.kind {
                case .appendText(let text, _, let tokenCount):
                    state.text += text
                    state.outputTokens += tokenCount
                    return state.text
                case .updateUsage(let input, let output):
                    state.usage.inputTokenCount = input.totalTokenCount
                    state.usage.cachedInputTokenCount = input.cachedTokenCount
                    state.usage.outputTokenCount = output.totalTokenCount
                    return nil
                case .updateMetadata(let values):
                    state.metadata.merge(values) { _, new in new }
                    return nil
                }
            case .reasoning(let entryID, let action):
                if state.reasoningID == nil { state.reasoningID = entryID }
                switch action.kind {
                case .appendText(let text, _, let tokenCount):
                    state.reasoning += text
                    state.outputTokens += tokenCount
                }
                return nil
            case .toolCalls(let entryID, let action):
                if state.toolCallsID == nil { state.toolCallsID = entryID }
                switch action.kind {
                case .append(let call, let tokenCount):
                    state.toolCalls.append(call)
                    state.outputTokens += tokenCount
                }
                return nil
            }
        }
    }
}
