import Foundation
import LocalLMSync

/// Where a session sits in the call graph of agents: how deep, and under which bounds.
package struct AgentState: Sendable {
    /// Set when the session joined a graph as the child of a tool call; `nil` for a top session.
    var placement: AgentPlacement?
    var limits = LanguageModelSession.AgentLimits()
}

/// A session's node in the call graph: its latest transcript and the nodes of the sessions its
/// tool calls started. Parents hold nodes, not sessions, so a finished child session (with its
/// KV cache) is freed while its transcript stays reachable from the top.
package final class AgentNode: Sendable {
    private let state: SanitizableMutex<(transcript: Transcript, children: [(call: Transcript.ToolCall, node: AgentNode)])>

    init(transcript: Transcript) {
        state = SanitizableMutex((transcript, []))
    }

    func record(_ transcript: Transcript) {
        state.withLock { $0.transcript = transcript }
    }

    func adopt(_ child: AgentNode, startedBy call: Transcript.ToolCall) {
        state.withLock { $0.children.append((call, child)) }
    }

    func graph(startedBy call: Transcript.ToolCall?) -> LanguageModelSession.CallGraph {
        let (transcript, children) = state.withLock { ($0.transcript, $0.children) }
        return LanguageModelSession.CallGraph(
            toolCall: call, transcript: transcript, children: children.map { $0.node.graph(startedBy: $0.call) })
    }
}

/// A session's position in a graph, fixed when it joins.
package struct AgentPlacement: Sendable {
    let depth: Int
    let limits: LanguageModelSession.AgentLimits
    /// Counts every session of the top request's graph.
    let graphSessions: AgentCounter
    /// Tool names from the top session down to this one.
    let path: [String]
}

/// A counter that refuses to go past a bound, shared by concurrent tool calls.
package final class AgentCounter: Sendable {
    private let value: SanitizableMutex<Int>

    init(_ initial: Int = 0) { value = SanitizableMutex(initial) }

    /// Adds one unless that would exceed `bound`; returns whether it did.
    func increment(upTo bound: Int) -> Bool {
        value.withLock { value in
            guard value < bound else { return false }
            value += 1
            return true
        }
    }
}

/// The tool call running on this task: sessions whose first request starts here join the graph
/// as children of `parent`. The session sets it around each tool call, so tools need not pass
/// anything along (child tasks and `Task {}` inherit it; `Task.detached` does not).
package struct AgentContext: Sendable {
    let parent: AgentNode
    let call: Transcript.ToolCall
    /// The parent's placement: children sit one level below it.
    let placement: AgentPlacement
    /// Sessions started by the parent's current request (fan-out).
    let requestSessions: AgentCounter

    @TaskLocal package static var current: AgentContext?
}

extension LanguageModelSession {
    /// Places the session in the call graph for a request, or throws if the bounds refuse it.
    /// A session joins as a child once, at its first request inside a tool call; a top session
    /// starts a fresh graph (and session count) with every request, under its current limits.
    package func joinCallGraph() throws -> AgentPlacement {
        if let placement = agent.withLock({ $0.placement }) { return placement }
        guard let context = AgentContext.current, context.parent !== agentNode else {
            return AgentPlacement(depth: 0, limits: agentLimits, graphSessions: AgentCounter(1), path: [])
        }
        let parent = context.placement
        let limits = parent.limits
        let path = parent.path + [context.call.toolName]
        let depth = parent.depth + 1
        guard depth <= limits.maximumDepth else {
            throw AgentLimitExceeded(limit: .depth, bound: limits.maximumDepth, path: path)
        }
        guard context.requestSessions.increment(upTo: limits.maximumFanOut) else {
            throw AgentLimitExceeded(limit: .fanOut, bound: limits.maximumFanOut, path: path)
        }
        guard parent.graphSessions.increment(upTo: limits.maximumSessions) else {
            throw AgentLimitExceeded(limit: .sessions, bound: limits.maximumSessions, path: path)
        }
        let placement = AgentPlacement(depth: depth, limits: limits, graphSessions: parent.graphSessions, path: path)
        agent.withLock { $0.placement = placement }
        context.parent.adopt(agentNode, startedBy: context.call)
        return placement
    }
}
