import Foundation
import LocalLM
import LocalLMSync

/// A `LanguageModel` that plays back a script, for testing session semantics without an engine.
/// Each request takes the next step; every request's transcript and options are recorded.
struct ScriptedModel: LanguageModel {
    enum Step: Sendable {
        /// Streams text chunks, one token each, pausing between them (checking cancellation).
        case text([String], pause: Duration = .zero)
        /// Emits tool calls (name, arguments JSON).
        case toolCalls([(name: String, arguments: String)])
        /// Streams some text, then throws.
        case fail(partial: [String], error: LanguageModelError)
        /// Waits until `Script.release()` before answering with the text.
        case gated(String)
    }

    final class Script: Sendable {
        private let steps: SanitizableMutex<[Step]>
        private let recorded = SanitizableMutex<[LanguageModelExecutorGenerationRequest]>([])
        private let gate = SanitizableMutex<CheckedContinuation<Void, Never>?>(nil)
        private let gateOpened = SanitizableMutex(false)
        /// Repeats the last step forever when the script runs out (for runaway-loop tests).
        let repeatsLast: Bool

        init(_ steps: [Step], repeatsLast: Bool = false) {
            self.steps = SanitizableMutex(steps)
            self.repeatsLast = repeatsLast
        }

        var requests: [LanguageModelExecutorGenerationRequest] { recorded.withLock { $0 } }

        func next(for request: LanguageModelExecutorGenerationRequest) -> Step? {
            recorded.withLock { $0.append(request) }
            return steps.withLock { steps in
                guard let first = steps.first else { return nil }
                if steps.count > 1 || !repeatsLast { steps.removeFirst() }
                return first
            }
        }

        func waitAtGate() async {
            await withCheckedContinuation { continuation in
                let open = gateOpened.withLock { $0 }
                if open { continuation.resume() } else { gate.withLock { $0 = continuation } }
            }
        }

        func release() {
            gateOpened.withLock { $0 = true }
            gate.withLock { $0?.resume(); $0 = nil }
        }
    }

    let script: Script

    init(_ steps: [Step], repeatsLast: Bool = false) {
        script = Script(steps, repeatsLast: repeatsLast)
    }

    var executorConfiguration: Executor.Configuration { Executor.Configuration(script: script) }

    struct Executor: LanguageModelExecutor {
        typealias Model = ScriptedModel

        struct Configuration: Hashable, Sendable {
            let script: Script
            static func == (lhs: Self, rhs: Self) -> Bool { lhs.script === rhs.script }
            func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(script)) }
        }

        let script: Script

        init(configuration: Configuration) throws {
            script = configuration.script
        }

        func respond(
            to request: LanguageModelExecutorGenerationRequest, model: ScriptedModel,
            streamingInto channel: LanguageModelExecutorGenerationChannel
        ) async throws {
            guard let step = script.next(for: request) else {
                throw LanguageModelError.decodingFailure(.init(debugDescription: "script ran out"))
            }
            await channel.send(.response(action: .updateUsage(
                input: .init(totalTokenCount: request.transcript.count * 10, cachedTokenCount: 5),
                output: .init(totalTokenCount: 0, reasoningTokenCount: 0))))
            switch step {
            case .text(let chunks, let pause):
                for chunk in chunks {
                    try Task.checkCancellation()
                    if pause > .zero { try await Task.sleep(for: pause) }
                    await channel.send(.response(action: .appendText(chunk, tokenCount: 1)))
                }
            case .toolCalls(let calls):
                for (index, call) in calls.enumerated() {
                    let arguments = try GeneratedContent(json: call.arguments)
                    await channel.send(.toolCalls(action: .append(
                        Transcript.ToolCall(id: "call-\(request.transcript.count)-\(index)", toolName: call.name, arguments: arguments),
                        tokenCount: 5)))
                }
            case .fail(let partial, let error):
                for chunk in partial {
                    await channel.send(.response(action: .appendText(chunk, tokenCount: 1)))
                }
                throw error
            case .gated(let text):
                await script.waitAtGate()
                await channel.send(.response(action: .appendText(text, tokenCount: 1)))
            }
        }
    }
}
