import Foundation

extension LanguageModelSession {
    /// A snapshot of a session and, recursively, the sessions its tool calls started: every
    /// transcript of a multi-agent run, reachable from the top, for logging and debugging.
    /// `description` prints it as a tree, each child under the tool call that started it.
    public struct CallGraph: Sendable, CustomStringConvertible {
        /// The tool call, in the parent's transcript, inside which this session made its first
        /// request; `nil` for the top session.
        public var toolCall: Transcript.ToolCall?
        /// The session's transcript when the snapshot was taken.
        public var transcript: Transcript
        /// The sessions this session's tool calls started, in the order they first responded.
        public var children: [CallGraph]

        public init(toolCall: Transcript.ToolCall? = nil, transcript: Transcript, children: [CallGraph] = []) {
            self.toolCall = toolCall
            self.transcript = transcript
            self.children = children
        }

        /// The number of sessions in the graph, this one included.
        public var sessionCount: Int { 1 + children.reduce(0) { $0 + $1.sessionCount } }

        /// Every session's transcript, depth first, this one first.
        public var transcripts: [Transcript] { [transcript] + children.flatMap(\.transcripts) }

        /// How deep the graph is: 0 when no tool started a session.
        public var depth: Int { children.map { $0.depth + 1 }.max() ?? 0 }

        public var description: String {
            var lines: [String] = []
            render(into: &lines, indent: "")
            return lines.joined(separator: "\n")
        }

        private func render(into lines: inout [String], indent: String) {
            let title = toolCall.map { "session started by \($0.toolName) (call \($0.id.prefix(8)))" } ?? "session"
            lines.append(indent + "● " + title)
            let body = indent + "│ "
            var placed = Set<Int>()
            for entry in transcript {
                append(entry.description, to: &lines, indent: body)
                guard case .toolCalls(let calls) = entry else { continue }
                let ids = Set(calls.map(\.id))
                for (index, child) in children.enumerated() where child.toolCall.map({ ids.contains($0.id) }) ?? false {
                    placed.insert(index)
                    child.render(into: &lines, indent: body + "  ")
                }
            }
            // Children whose call is not in the transcript (reverted after an error, say).
            for (index, child) in children.enumerated() where !placed.contains(index) {
                child.render(into: &lines, indent: body + "  ")
            }
        }

        private func append(_ text: String, to lines: inout [String], indent: String) {
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                lines.append(indent + line)
            }
        }
    }

    /// This session and every session its tools started, with their transcripts, as they are now.
    public var callGraph: CallGraph { agentNode.graph(startedBy: nil) }
}
