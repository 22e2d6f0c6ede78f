import Foundation

/// A session's executor with its model bound in, so the session is not generic over the model.
package struct AnyLanguageModelExecutor: Sendable {
    package let respond: @Sendable (LanguageModelExecutorGenerationRequest, LanguageModelExecutorGenerationChannel) async throws -> Void
    package let prewarm: @Sendable (Transcript) -> Void
    /// A name for logs and `Transcript.Response.assetIDs`.
    package let modelName: String
    /// The model's capabilities, asked when a request is checked.
    package let capabilities: @Sendable () -> LanguageModelCapabilities

    package init<Model: LanguageModel>(model: Model) throws {
        let executor = try Model.Executor(configuration: model.executorConfiguration)
        respond = { request, channel in
            try await executor.respond(to: request, model: model, streamingInto: channel)
        }
        prewarm = { transcript in executor.prewarm(model: model, transcript: transcript) }
        modelName = (model as? SystemLanguageModel)?.assetID ?? String(describing: Model.self)
        capabilities = { model.capabilities }
    }

    /// An executor that fails every request, for a model whose executor could not be made.
    package init(failing error: any Error, modelName: String) {
        respond = { _, _ in throw error }
        prewarm = { _ in }
        self.modelName = modelName
        // Claims everything, so that the request reaches `respond` and fails with the reason.
        capabilities = { LanguageModelCapabilities([.toolCalling, .guidedGeneration, .reasoning]) }
    }
}
