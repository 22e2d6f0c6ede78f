import Foundation

extension LanguageModelSession {
    /// Bounds on the sessions that tools start while a session responds ("agents": sessions used
    /// as tools). A tool that starts a session which calls the same tool again, or a coordinator
    /// that fans out to many workers, would otherwise grow without end; a session refused by these
    /// bounds throws `AgentLimitExceeded` at its first request, before it does any work.
    ///
    /// The bounds of the outermost session (the one not started inside a tool call) apply to the
    /// whole call graph beneath it.
    public struct AgentLimits: Sendable, Hashable {
        /// How deep sessions may nest: 1 lets the top session's tools start sessions, but not
        /// their tools.
        public var maximumDepth: Int
        /// How many sessions the tool calls of one request of one session may start.
        public var maximumFanOut: Int
        /// How many sessions one request of the top session may involve in all, itself included.
        public var maximumSessions: Int

        public init(maximumDepth: Int = 3, maximumFanOut: Int = 8, maximumSessions: Int = 32) {
            self.maximumDepth = maximumDepth
            self.maximumFanOut = maximumFanOut
            self.maximumSessions = maximumSessions
        }
    }

    /// A tool started a session that `AgentLimits` does not allow. It passes through the tool
    /// calls of every session above (it is not wrapped in `ToolCallError`), so the top request
    /// fails with it; transcripts follow each session's error policy.
    public struct AgentLimitExceeded: Swift.Error, LocalizedError, Sendable, Equatable {
        /// Which bound the refused session would have exceeded.
        public enum Limit: String, Sendable, Hashable {
            case depth, fanOut, sessions
        }

        /// The bound that was exceeded.
        public let limit: Limit
        /// Its value.
        public let bound: Int
        /// The names of the tools whose calls led from the top session to the refused one.
        public let path: [String]

        public init(limit: Limit, bound: Int, path: [String]) {
            self.limit = limit
            self.bound = bound
            self.path = path
        }

        public var errorDescription: String? {
            let what =
                switch limit {
                case .depth: "sessions nested more than \(bound) deep"
                case .fanOut: "one request's tool calls started more than \(bound) sessions"
                case .sessions: "the call graph grew past \(bound) sessions"
                }
            return "Agent limit exceeded: \(what) (at \(path.joined(separator: " → ")))."
        }
    }

    /// The bounds on the sessions this session's tools start, and theirs (see `AgentLimits`).
    public var agentLimits: AgentLimits {
        get { agent.withLock { $0.limits } }
        set { agent.withLock { $0.limits = newValue } }
    }
}
