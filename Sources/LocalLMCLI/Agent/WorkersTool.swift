import Foundation
import LocalLM
import LocalLMSync

/// The workers: one session per subtask, all running at once on the one loaded model, each with
/// its own context. Answers come back in subtask order whatever order they finish in.
struct WorkersTool: Tool {
    let name = "work"
    let description = "Carries out subtasks, each in its own session, at the same time."

    @Generable
    struct Arguments {
        @Guide(description: "The subtasks to carry out", .count(2...3), .element(.pattern(/[A-Z][A-Za-z ,]{3,48}/)))
        var subtasks: [String]
    }

    /// When each worker produced its first and last text, relative to `origin`, for the printout.
    final class Timeline: Sendable {
        let origin = ContinuousClock.now
        let spans = SanitizableMutex<[Int: (first: Duration, last: Duration)]>([:])
    }

    let model: SystemLanguageModel
    let options: GenerationOptions
    let timeline: Timeline

    func call(arguments: Arguments) async throws -> [String] {
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (index, subtask) in arguments.subtasks.enumerated() {
                group.addTask {
                    let session = LanguageModelSession(model: model, instructions: "Explain how to do this step in one or two sentences.")
                    let stream = session.streamResponse(to: subtask, options: options)
                    var first: Duration?
                    for try await _ in stream where first == nil { first = .now - timeline.origin }
                    let answer = try await stream.collect()
                    let last = ContinuousClock.now - timeline.origin
                    timeline.spans.withLock { $0[index] = (first ?? last, last) }
                    return (index, "\(index + 1). \(answer.content)")
                }
            }
            var answers = [String](repeating: "", count: arguments.subtasks.count)
            for try await (index, answer) in group { answers[index] = answer }
            return answers
        }
    }
}
