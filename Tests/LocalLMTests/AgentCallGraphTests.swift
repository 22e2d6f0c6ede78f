import Foundation
import LocalLM
import Testing
import LocalLMSync

/// `{"task": String}`, written by hand so these tests do not depend on the macros.
struct TaskArguments: Generable {
    var task: String

    static var generationSchema: GenerationSchema {
        GenerationSchema(type: Self.self, properties: [.init(name: "task", description: "A task", type: String.self)])
    }

    init(_ content: GeneratedContent) throws {
        task = try content.value(String.self, forProperty: "task")
    }

    var generatedContent: GeneratedContent { GeneratedContent(properties: ["task": task]) }
}

/// Wall-clock intervals during which each child session was responding.
final class IntervalLog: Sendable {
    private let intervals = SanitizableMutex<[String: (start: ContinuousClock.Instant, end: ContinuousClock.Instant)]>([:])

    func record(_ name: String, _ start: ContinuousClock.Instant, _ end: ContinuousClock.Instant) {
        intervals.withLock { $0[name] = (start, end) }
    }

    var all: [String: (start: ContinuousClock.Instant, end: ContinuousClock.Instant)] { intervals.withLock { $0 } }

    /// Whether every interval overlaps every other: the latest start is before the earliest end.
    var allOverlap: Bool {
        let values = Array(all.values)
        guard let latestStart = values.map(\.start).max(), let earliestEnd = values.map(\.end).min() else { return false }
        return latestStart < earliestEnd
    }
}

/// A worker that answers with its own session on a scripted model that takes a while.
struct ScriptedWorker: Tool {
    let name = "Worker"
    let description = "Does one task"
    let log: IntervalLog

    func call(arguments: TaskArguments) async throws -> String {
        let model = ScriptedModel([.text(["Did ", arguments.task], pause: .milliseconds(60))])
        let session = LanguageModelSession(model: model, instructions: "You do one task.")
        // The interval runs from the first streamed text, so sessions served one after the other
        // would not overlap.
        var first: ContinuousClock.Instant?
        let stream = session.streamResponse(to: arguments.task)
        for try await _ in stream where first == nil { first = .now }
        let answer = try await stream.collect()
        log.record(arguments.task, first ?? .now, .now)
        return answer.content
    }
}

/// A worker that keeps only a weak reference to the session it ran.
struct ForgettingWorker: Tool {
    let name = "Worker"
    let description = "Does one task"

    final class WeakSession: Sendable {
        weak let session: LanguageModelSession?
        init(_ session: LanguageModelSession) { self.session = session }
    }

    let log: WeakLog

    final class WeakLog: Sendable {
        let sessions = SanitizableMutex<[WeakSession]>([])
    }

    func call(arguments: TaskArguments) async throws -> String {
        let session = LanguageModelSession(model: ScriptedModel([.text(["Did ", arguments.task])]))
        log.sessions.withLock { $0.append(WeakSession(session)) }
        return try await session.respond(to: arguments.task).content
    }
}

/// A tool whose session is told to call this same tool again, forever.
struct ScriptedRecursion: Tool {
    let name = "Delegate"
    let description = "Hands the task to a helper"

    func call(arguments: TaskArguments) async throws -> String {
        let model = ScriptedModel([.toolCalls([("Delegate", #"{"task":"deeper"}"#)])], repeatsLast: true)
        let session = LanguageModelSession(model: model, tools: [ScriptedRecursion()])
        return try await session.respond(to: arguments.task).content
    }
}

@Suite("Agents: sessions started by tools")
struct AgentCallGraphTests {
    @Test func workerSessionsRunConcurrentlyAndAllAppearInTheCallGraph() async throws {
        let model = ScriptedModel([
            .toolCalls([("Worker", #"{"task":"alpha"}"#), ("Worker", #"{"task":"beta"}"#), ("Worker", #"{"task":"gamma"}"#)]),
            .text(["All done."]),
        ])
        let log = IntervalLog()
        let coordinator = LanguageModelSession(model: model, tools: [ScriptedWorker(log: log)], instructions: "Coordinate.")
        try await coordinator.respond(to: "Do three things.")

        #expect(log.all.count == 3)
        #expect(log.allOverlap, "the three worker sessions should respond at the same time")
        let graph = coordinator.callGraph
        #expect(graph.sessionCount == 4)
        #expect(graph.depth == 1)
        #expect(graph.toolCall == nil)
        guard case .toolCalls(let calls) = graph.transcript[2] else {
            Issue.record("expected tool calls: \(graph.transcript.map(\.description))")
            return
        }
        // Each child is linked to the call that started it, and holds its whole transcript.
        #expect(Set(graph.children.compactMap(\.toolCall?.id)) == Set(calls.map(\.id)))
        for child in graph.children {
            let task = try #require(try child.toolCall?.arguments.value(String.self, forProperty: "task"))
            #expect(child.transcript.map(\.description) == ["Instructions: You do one task.", "Prompt: \(task)", "Response: Did \(task)"])
        }
        #expect(graph.transcripts.count == 4)
        // The printed tree nests each worker under the tool-call entry, before the outputs.
        let printed = graph.description
        let callsLine = try #require(printed.range(of: "│ Tool calls:"))
        let firstOutput = try #require(printed.range(of: "│ Worker output"))
        for task in ["alpha", "beta", "gamma"] {
            let child = try #require(printed.range(of: "│   │ Response: Did \(task)"), "\(printed)")
            #expect(callsLine.upperBound < child.lowerBound && child.upperBound < firstOutput.lowerBound)
        }
        #expect(printed.components(separatedBy: "● session started by Worker").count == 4)
    }

    @Test func fanOutBeyondTheBoundIsATypedError() async throws {
        let model = ScriptedModel([
            .toolCalls([("Worker", #"{"task":"a"}"#), ("Worker", #"{"task":"b"}"#), ("Worker", #"{"task":"c"}"#)]),
            .text(["unused"]),
        ])
        let coordinator = LanguageModelSession(model: model, tools: [ScriptedWorker(log: IntervalLog())])
        coordinator.agentLimits.maximumFanOut = 2
        await #expect(throws: LanguageModelSession.AgentLimitExceeded(limit: .fanOut, bound: 2, path: ["Worker"])) {
            try await coordinator.respond(to: "Do three things.")
        }
        #expect(coordinator.callGraph.sessionCount <= 3)
        #expect(coordinator.transcript.count == 1, "the default policy reverts the transcript")
        #expect(!coordinator.isResponding)
    }

    @Test func recursionBeyondTheDepthBoundIsATypedError() async throws {
        let model = ScriptedModel([.toolCalls([("Delegate", #"{"task":"start"}"#)])], repeatsLast: true)
        let top = LanguageModelSession(model: model, tools: [ScriptedRecursion()])
        top.agentLimits = LanguageModelSession.AgentLimits(maximumDepth: 2)
        top.transcriptErrorHandlingPolicy = .preserveTranscript
        do {
            try await top.respond(to: "Go")
            Issue.record("expected AgentLimitExceeded")
        } catch let error as LanguageModelSession.AgentLimitExceeded {
            #expect(error == .init(limit: .depth, bound: 2, path: ["Delegate", "Delegate", "Delegate"]))
            #expect(error.localizedDescription.contains("nested more than 2 deep"))
        }
        // The sessions that were allowed are in the graph; the refused one is not.
        let graph = top.callGraph
        #expect(graph.sessionCount == 3)
        #expect(graph.depth == 2)
        #expect(graph.children.first?.children.first?.toolCall?.toolName == "Delegate")
    }

    @Test func theGraphWideSessionBoundCountsEverySession() async throws {
        let model = ScriptedModel([
            .toolCalls([("Worker", #"{"task":"a"}"#), ("Worker", #"{"task":"b"}"#), ("Worker", #"{"task":"c"}"#)]),
            .text(["unused"]),
        ])
        let coordinator = LanguageModelSession(model: model, tools: [ScriptedWorker(log: IntervalLog())])
        coordinator.agentLimits = LanguageModelSession.AgentLimits(maximumSessions: 3)
        await #expect(throws: LanguageModelSession.AgentLimitExceeded(limit: .sessions, bound: 3, path: ["Worker"])) {
            try await coordinator.respond(to: "Do three things.")
        }
    }

    /// The graph keeps transcripts, not sessions: a finished worker session (and the KV cache it
    /// would hold on a real model) is freed.
    @Test func finishedChildSessionsAreFreedButTheirTranscriptsStay() async throws {
        let model = ScriptedModel([.toolCalls([("Worker", #"{"task":"alpha"}"#)]), .text(["ok"])])
        let log = ForgettingWorker.WeakLog()
        let coordinator = LanguageModelSession(model: model, tools: [ForgettingWorker(log: log)])
        try await coordinator.respond(to: "Do it.")
        let refs = log.sessions.withLock { $0 }
        #expect(refs.count == 1)
        #expect(refs.allSatisfy { $0.session == nil })
        #expect(coordinator.callGraph.children.first?.transcript.map(\.description) == ["Prompt: alpha", "Response: Did alpha"])
    }

    @Test func aSessionOutsideAnyToolCallIsATopSession() async throws {
        let session = LanguageModelSession(model: ScriptedModel([.text(["hi"])]))
        try await session.respond(to: "Hello")
        let graph = session.callGraph
        #expect(graph.sessionCount == 1 && graph.children.isEmpty)
        #expect(graph.description == "● session\n│ Prompt: Hello\n│ Response: hi")
    }
}
