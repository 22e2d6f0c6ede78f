import Foundation

extension LanguageModelSession {
    /// A tool threw while the session was calling it. The session's transcript follows the
    /// session's `transcriptErrorHandlingPolicy`.
    public struct ToolCallError: Swift.Error, LocalizedError {
        /// The tool that threw.
        public var tool: any Tool
        /// The error the tool threw.
        public var underlyingError: any Swift.Error

        public init(tool: any Tool, underlyingError: any Swift.Error) {
            self.tool = tool
            self.underlyingError = underlyingError
        }

        public var errorDescription: String? {
            "Tool '\(tool.name)' failed: \(underlyingError.localizedDescription)"
        }
    }
}
