import ArgumentParser
import Foundation
import LocalLM

/// `locallm agent "task"`: a coordinator session whose tools are a planner session and parallel
/// worker sessions, all on one model; prints the whole call graph and the answer. It runs on
/// Qwen2.5-Coder-0.5B-Instruct unless `--model` or `$LOCALLM_MODEL` names another file.
struct AgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Plan a task and carry it out with parallel worker sessions; print the call graph."
    )

    @Argument(help: "The task.")
    var task: String

    @Option(name: .long, help: "Most tokens per worker answer.")
    var workerTokens = 32

    @OptionGroup var options: ModelOptions

    func run() async throws {
        let model = try options.availableModel(defaultURL: ModelOptions.toolCallingModelURL)
        var generation = options.generationOptions
        // Repeatable by default: the printed graph is worth comparing between runs.
        if generation.samplingMode == nil { generation.samplingMode = .greedy }
        var answerOptions = generation
        answerOptions.maximumResponseTokens = options.maxTokens ?? 96
        var planOptions = generation
        planOptions.maximumResponseTokens = 96
        var workerOptions = generation
        workerOptions.maximumResponseTokens = workerTokens

        let timeline = WorkersTool.Timeline()
        let coordinator = LanguageModelSession(
            model: model,
            profile: CoordinatorProfile(
                planner: PlannerTool(model: model, options: planOptions),
                workers: WorkersTool(model: model, options: workerOptions, timeline: timeline)))
        coordinator.agentLimits = LanguageModelSession.AgentLimits(maximumDepth: 1, maximumFanOut: 4, maximumSessions: 5)
        let started = ContinuousClock.now
        let answer: LanguageModelSession.Response<String>
        do {
            answer = try await coordinator.respond(to: task, options: answerOptions)
        } catch {
            print(coordinator.callGraph)
            throw error
        }
        let elapsed = ContinuousClock.now - started

        print("Call graph")
        print(coordinator.callGraph)
        print()
        let spans = timeline.spans.withLock { $0 }.sorted { $0.key < $1.key }
        for (index, span) in spans {
            print("worker \(index + 1) generated from \(Self.seconds(span.first)) to \(Self.seconds(span.last))")
        }
        print("\(coordinator.callGraph.sessionCount) sessions in \(Self.seconds(elapsed))")
        print()
        print("Answer: \(answer.content)")
    }

    private static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.1f s", value)
    }
}
