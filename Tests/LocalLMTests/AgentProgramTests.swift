// "LLMs calling LLMs" (the plan-and-execute pattern of the seeds), written against Apple's API and
// run on SmolLM2: a coordinator session whose tools are a planner (its own session, answering
// with a @Generable plan) and workers (one session per subtask, all at once, on the one loaded
// model). Only `callGraph` and `agentLimits` are LocalLM additions.
import Foundation
import LocalLM
import LocalLMTestSupport
import Testing
import LocalLMSync

enum AgentProgram {
    @Generable(description: "A plan")
    struct Plan {
        @Guide(description: "Two short steps", .count(2), .element(.pattern(/[A-Z][A-Za-z ,]{3,40}/)))
        var subtasks: [String]
    }

    /// Runs its own session, which answers with a `Plan`.
    struct Planner: Tool {
        let name = "plan"
        let description = "Breaks a task into short subtasks."

        @Generable
        struct Arguments {
            @Guide(description: "The task to break down", .pattern(/[A-Z][A-Za-z ,?]{3,60}/))
            var task: String
        }

        func call(arguments: Arguments) async throws -> Plan {
            let session = LanguageModelSession(instructions: """
                You break a task into two short steps. For example, for the task 'Bake bread' the steps are \
                'Mix the dough' and 'Bake the loaf'.
                """)
            let response = try await session.respond(
                to: "Task: \(arguments.task)", generating: Plan.self,
                options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 64))
            return response.content
        }
    }

    /// Runs one session per subtask, concurrently, and returns their answers in subtask order.
    struct Workers: Tool {
        let name = "work"
        let description = "Carries out subtasks, each in its own session, at the same time."

        @Generable
        struct Arguments {
            @Guide(description: "The subtasks to carry out", .count(2), .element(.pattern(/[A-Z][A-Za-z ,]{3,40}/)))
            var subtasks: [String]
        }

        let log: WorkLog

        func call(arguments: Arguments) async throws -> [String] {
            try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for (index, subtask) in arguments.subtasks.enumerated() {
                    group.addTask {
                        let session = LanguageModelSession(instructions: "Carry out the task in one short sentence.")
                        let stream = session.streamResponse(
                            to: subtask, options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 16))
                        var firstText: ContinuousClock.Instant?
                        for try await _ in stream where firstText == nil { firstText = .now }
                        let answer = try await stream.collect()
                        log.record(index: index, from: firstText ?? .now, to: .now)
                        return (index, answer.content)
                    }
                }
                var answers = [String](repeating: "", count: arguments.subtasks.count)
                for try await (index, answer) in group { answers[index] = answer }
                return answers
            }
        }
    }

    /// Plan first, then work, then answer: each phase offers one tool, and calling it is required
    /// (Apple's DynamicProfile pattern, which a 135M model needs to follow the steps).
    struct Coordinator: LanguageModelSession.DynamicProfile {
        @LanguageModelSession.SessionProperty(\.toolCallCount)
        var toolCallCount

        let log: WorkLog

        var body: some LanguageModelSession.DynamicProfile {
            if toolCallCount == 0 {
                LanguageModelSession.Profile {
                    "You coordinate. Plan the task first."
                    Planner()
                }
                .toolCallingMode(.required)
                .onToolCall { toolCallCount += 1 }
            } else if toolCallCount == 1 {
                LanguageModelSession.Profile {
                    "You coordinate. Give the subtasks of the plan to the workers."
                    Workers(log: log)
                }
                .toolCallingMode(.required)
                .onToolCall { toolCallCount += 1 }
            } else {
                LanguageModelSession.Profile {
                    "You coordinate. Answer the person in plain sentences, using the workers' results."
                }
                .toolCallingMode(.disallowed)
            }
        }
    }

    /// A tool whose session must call this same tool again: without a bound it would never end.
    struct Delegate: Tool {
        let name = "delegate"
        let description = "Hands the task to a helper."

        @Generable
        struct Arguments {
            @Guide(description: "Always go", .constant("go"))
            var step: String
        }

        func call(arguments: Arguments) async throws -> String {
            let helper = LanguageModelSession(tools: [Delegate()], instructions: "You delegate every task.")
            return try await helper.respond(to: "Delegate this.", options: GenerationOptions(toolCallingMode: .required)).content
        }
    }
}

/// When each worker session was producing text.
final class WorkLog: Sendable {
    private let intervals = SanitizableMutex<[Int: (from: ContinuousClock.Instant, to: ContinuousClock.Instant)]>([:])

    func record(index: Int, from: ContinuousClock.Instant, to: ContinuousClock.Instant) {
        intervals.withLock { $0[index] = (from, to) }
    }

    var count: Int { intervals.withLock { $0.count } }

    var description: String {
        intervals.withLock { $0 }.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.from) – \($0.value.to)" }
            .joined(separator: ", ")
    }

    /// Whether all intervals share a moment: the latest start comes before the earliest end.
    var overlap: Bool {
        let values = intervals.withLock { Array($0.values) }
        guard let latestStart = values.map(\.from).max(), let earliestEnd = values.map(\.to).min() else { return false }
        return latestStart < earliestEnd
    }
}

@Suite("Agents on SmolLM2", .serialized)
struct AgentProgramTests {
    init() throws {
        _ = try TestModels.require(TestModels.smolLM2)
    }

    @Test func coordinatorPlannerAndConcurrentWorkers() async throws {
        let log = WorkLog()
        let coordinator = LanguageModelSession(profile: AgentProgram.Coordinator(log: log))
        let answer = try await coordinator.respond(
            to: "Write a short guide to making tea.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 60))
        print(coordinator.callGraph)

        #expect(!answer.content.isEmpty)
        // Two workers ran, and produced text at the same time on the one model.
        #expect(log.count == 2)
        #expect(log.overlap, "the worker sessions should generate concurrently: \(log.description)")

        // The call graph holds every session: coordinator, planner, two workers.
        let graph = coordinator.callGraph
        #expect(graph.sessionCount == 4)
        #expect(graph.children.map(\.toolCall?.toolName) == ["plan", "work", "work"])
        let planner = graph.children[0]
        guard case .response(let plan)? = planner.transcript.last, case .structure(let structure)? = plan.segments.first else {
            Issue.record("the planner should answer with a structured plan: \(planner.transcript.map(\.description))")
            return
        }
        let decoded = try AgentProgram.Plan(structure.content)
        #expect(decoded.subtasks.count == 2)
        for worker in graph.children.dropFirst() {
            #expect(worker.transcript.count == 3)
            if case .response = worker.transcript.last {} else { Issue.record("worker without a response") }
        }
        // Every transcript is printed in the tree, each child under the call that started it.
        let printed = graph.description
        for transcript in graph.transcripts {
            for entry in transcript {
                #expect(printed.contains(entry.description.split(separator: "\n").first.map(String.init) ?? ""))
            }
        }
    }

    @Test func recursiveSpawningStopsAtTheDepthBound() async throws {
        let top = LanguageModelSession(tools: [AgentProgram.Delegate()], instructions: "You delegate every task.")
        top.agentLimits = LanguageModelSession.AgentLimits(maximumDepth: 2)
        do {
            try await top.respond(to: "Delegate this.", options: GenerationOptions(toolCallingMode: .required))
            Issue.record("expected AgentLimitExceeded")
        } catch let error as LanguageModelSession.AgentLimitExceeded {
            #expect(error == .init(limit: .depth, bound: 2, path: ["delegate", "delegate", "delegate"]))
        }
        // Depth 0, 1 and 2 ran and are in the graph; the session at depth 3 was refused before it ran.
        let graph = top.callGraph
        #expect(graph.sessionCount == 3)
        #expect(graph.depth == 2)
        #expect(!top.isResponding)
    }
}
