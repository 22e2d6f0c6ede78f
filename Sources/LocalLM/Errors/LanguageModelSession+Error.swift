import Foundation

extension LanguageModelSession {
    /// A failure caused by incorrect use of a session (the 2026 API). `respond` reports these as
    /// `GenerationError` for compatibility: `.concurrentRequests` becomes
    /// `GenerationError.concurrentRequests`.
    public enum Error: Swift.Error, Hashable, LocalizedError {
        /// The session received a request while it was responding to another.
        case concurrentRequests
        /// The transcript was changed while a request was in progress.
        case transcriptMutationWhileResponding

        public var errorDescription: String? {
            switch self {
            case .concurrentRequests:
                "The session received a request while it was responding to another; a session answers one request at a time."
            case .transcriptMutationWhileResponding:
                "The session's transcript was changed while a request was in progress."
            }
        }
    }
}
