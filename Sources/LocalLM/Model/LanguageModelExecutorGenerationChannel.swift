import Foundation

/// The channel an executor streams its output through: response text, reasoning, tool calls,
/// usage and metadata. The session turns these events into snapshots and transcript entries.
public struct LanguageModelExecutorGenerationChannel: Sendable {
    private let receive: @Sendable (Event) async -> Void

    package init(_ receive: @escaping @Sendable (Event) async -> Void) {
        self.receive = receive
    }

    /// Sends an event to the session.
    public func send(_ event: Event) async {
        await receive(event)
    }

    /// A generation event.
    public struct Event: Sendable {
        package enum Kind: Sendable {
            case response(entryID: String?, Response.Action)
            case reasoning(entryID: String?, Reasoning.Action)
            case toolCalls(entryID: String?, ToolCalls.Action)
        }

        package let kind: Kind

        /// An event for the response entry. Pass `nil` to let the session coalesce events into one entry.
        public static func response(entryID: String? = nil, action: Response.Action) -> Event {
            Event(kind: .response(entryID: entryID, action))
        }

        /// An event for the reasoning entry.
        public static func reasoning(entryID: String? = nil, action: Reasoning.Action) -> Event {
            Event(kind: .reasoning(entryID: entryID, action))
        }

        /// An event for the tool calls entry.
        public static func toolCalls(entryID: String? = nil, action: ToolCalls.Action) -> Event {
            Event(kind: .toolCalls(entryID: entryID, action))
        }
    }

    /// Token usage of a request.
    public enum Usage {
        /// Tokens read by the model.
        public struct Input: Sendable, Equatable {
            /// All prompt tokens, including those served from the cache.
            public var totalTokenCount: Int
            /// Prompt tokens whose KV entries were reused instead of computed.
            public var cachedTokenCount: Int

            public init(totalTokenCount: Int, cachedTokenCount: Int) {
                self.totalTokenCount = totalTokenCount
                self.cachedTokenCount = cachedTokenCount
            }
        }

        /// Tokens produced by the model.
        public struct Output: Sendable, Equatable {
            public var totalTokenCount: Int
            public var reasoningTokenCount: Int

            public init(totalTokenCount: Int, reasoningTokenCount: Int) {
                self.totalTokenCount = totalTokenCount
                self.reasoningTokenCount = reasoningTokenCount
            }
        }
    }

    /// Response events.
    public enum Response {
        /// An operation on the response entry.
        public struct Action: Sendable {
            package enum Kind: Sendable {
                case appendText(String, segmentID: String?, tokenCount: Int)
                case updateUsage(input: Usage.Input, output: Usage.Output)
                case updateMetadata([String: String])
            }

            package let kind: Kind

            /// Appends text produced from `tokenCount` tokens.
            public static func appendText(_ text: String, segmentID: String? = nil, tokenCount: Int) -> Action {
                Action(kind: .appendText(text, segmentID: segmentID, tokenCount: tokenCount))
            }

            /// Reports token usage so far.
            public static func updateUsage(input: Usage.Input, output: Usage.Output) -> Action {
                Action(kind: .updateUsage(input: input, output: output))
            }

            /// Reports metadata such as the model identifier.
            public static func updateMetadata(_ values: [String: String]) -> Action {
                Action(kind: .updateMetadata(values))
            }
        }
    }

    /// Reasoning events.
    public enum Reasoning {
        /// An operation on the reasoning entry.
        public struct Action: Sendable {
            package enum Kind: Sendable {
                case appendText(String, segmentID: String?, tokenCount: Int)
            }

            package let kind: Kind

            /// Appends reasoning text produced from `tokenCount` tokens.
            public static func appendText(_ text: String, segmentID: String? = nil, tokenCount: Int) -> Action {
                Action(kind: .appendText(text, segmentID: segmentID, tokenCount: tokenCount))
            }
        }
    }

    /// Tool call events.
    public enum ToolCalls {
        /// An operation on the tool calls entry.
        public struct Action: Sendable {
            package enum Kind: Sendable {
                case append(Transcript.ToolCall, tokenCount: Int)
            }

            package let kind: Kind

            /// Appends one complete tool call, generated from `tokenCount` tokens.
            public static func append(_ call: Transcript.ToolCall, tokenCount: Int = 0) -> Action {
                Action(kind: .append(call, tokenCount: tokenCount))
            }
        }
    }
}
