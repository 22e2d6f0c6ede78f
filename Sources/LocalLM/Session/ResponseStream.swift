import Foundation
import LocalLMSync

extension LanguageModelSession {
    /// The response to a request as an async sequence of cumulative snapshots: each one holds
    /// everything generated so far. `collect()` waits for the end and returns the full response.
    ///
    /// The request starts when the stream is first iterated or collected, and is cancelled when the
    /// iterating task is. Iterate it once; `collect()` may follow a partial iteration.
    public struct ResponseStream<Content: Generable>: AsyncSequence, Sendable {
        /// A snapshot of the response so far.
        public struct Snapshot {
            /// The response so far, with the fields that have been generated.
            public var content: Content.PartiallyGenerated
            /// The response so far as generated content.
            public var rawContent: GeneratedContent
        }

        public typealias Element = Snapshot

        private let run: StreamRun

        init(
            session: LanguageModelSession, prompt: Prompt, schema: GenerationSchema?, includeSchemaInPrompt: Bool,
            options: GenerationOptions
        ) {
            // The final content must make `Content` before it enters the transcript, as `respond` checks.
            run = StreamRun(
                session: session, prompt: prompt, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options,
                validate: { _ = try LanguageModelSession.decode(Content.self, from: $0) })
        }

        public struct AsyncIterator: AsyncIteratorProtocol {
            fileprivate var base: AsyncThrowingStream<GeneratedContent, any Swift.Error>.AsyncIterator
            fileprivate let run: StreamRun

            /// The next snapshot. When the iterating task is cancelled, the request is cancelled and
            /// this throws `CancellationError` once the session has put its transcript back and is
            /// ready for the next request.
            public mutating func next() async throws -> Snapshot? {
                guard let raw = try await base.next() else {
                    if Task.isCancelled {
                        await run.finished()
                        throw CancellationError()
                    }
                    return nil
                }
                return Snapshot(content: try Content.PartiallyGenerated(raw), rawContent: raw)
            }
        }

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: run.start().makeAsyncIterator(), run: run)
        }

        /// Waits for the request to finish and returns the complete response.
        public func collect() async throws -> sending Response<Content> {
            let stream = run.start()
            for try await _ in stream {}
            guard let outcome = run.outcome else {
                // Cancelled: return once the session is ready for the next request.
                await run.finished()
                throw CancellationError()
            }
            let content = try LanguageModelSession.decode(Content.self, from: outcome.rawContent)
            return Response(
                content: content, rawContent: outcome.rawContent, transcriptEntries: outcome.transcriptEntries,
                usage: outcome.usage)
        }
    }
}

/// The one request behind a `ResponseStream`, started on first use.
fileprivate final class StreamRun: Sendable {
    private struct State {
        var stream: AsyncThrowingStream<GeneratedContent, any Swift.Error>?
        var outcome: LanguageModelSession.RequestOutcome?
        var task: Task<Void, Never>?
    }

    private let session: LanguageModelSession
    private let prompt: Prompt
    private let schema: GenerationSchema?
    private let includeSchemaInPrompt: Bool
    private let options: GenerationOptions
    private let validate: @Sendable (GeneratedContent) throws -> Void
    private let state = SanitizableMutex(State())

    init(
        session: LanguageModelSession, prompt: Prompt, schema: GenerationSchema?, includeSchemaInPrompt: Bool,
        options: GenerationOptions, validate: @escaping @Sendable (GeneratedContent) throws -> Void
    ) {
        self.session = session
        self.prompt = prompt
        self.schema = schema
        self.includeSchemaInPrompt = includeSchemaInPrompt
        self.options = options
        self.validate = validate
    }

    var outcome: LanguageModelSession.RequestOutcome? { state.withLock { $0.outcome } }

    /// Waits until the request has ended (finished, failed or been cancelled).
    func finished() async {
        await state.withLock { $0.task }?.value
    }

    /// The stream of cumulative contents; the request starts on the first call.
    func start() -> AsyncThrowingStream<GeneratedContent, any Swift.Error> {
        state.withLock { state in
            if let stream = state.stream { return stream }
            let (stream, continuation) = AsyncThrowingStream<GeneratedContent, any Swift.Error>.makeStream()
            let task = Task { [self] in
                do {
                    let outcome = try await session.performRequest(
                        prompt: prompt, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options,
                        validate: validate, onProgress: { content in continuation.yield(content) })
                    self.state.withLock { $0.outcome = outcome }
                    // The last snapshot is the complete response (a schema response may parse
                    // differently once complete).
                    continuation.yield(outcome.rawContent)
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { termination in
                if case .cancelled = termination { task.cancel() }
            }
            state.stream = stream
            state.task = task
            return stream
        }
    }
}
