import Foundation

extension LanguageModelSession {
    // MARK: Text responses.

    /// Answers a prompt with text.
    @discardableResult
    public func respond(to prompt: String, options: GenerationOptions = GenerationOptions()) async throws -> Response<String> {
        try await respond(to: Prompt(prompt), options: options)
    }

    /// Answers a prompt with text.
    @discardableResult
    public func respond(to prompt: Prompt, options: GenerationOptions = GenerationOptions()) async throws -> Response<String> {
        let outcome = try await performRequest(prompt: prompt, schema: nil, includeSchemaInPrompt: false, options: options)
        return Response(
            content: try String(outcome.rawContent), rawContent: outcome.rawContent,
            transcriptEntries: outcome.transcriptEntries, usage: outcome.usage)
    }

    /// Answers a prompt built with a result builder with text.
    @discardableResult
    public func respond(
        options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<String> {
        try await respond(to: try prompt(), options: options)
    }

    // MARK: Responses that follow a schema.

    /// Answers a prompt with content that follows a dynamic schema.
    @discardableResult
    public func respond(
        to prompt: String, schema: GenerationSchema, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<GeneratedContent> {
        try await respond(to: Prompt(prompt), schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Answers a prompt with content that follows a dynamic schema.
    @discardableResult
    public func respond(
        to prompt: Prompt, schema: GenerationSchema, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<GeneratedContent> {
        let outcome = try await performRequest(
            prompt: prompt, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
        return Response(
            content: outcome.rawContent, rawContent: outcome.rawContent,
            transcriptEntries: outcome.transcriptEntries, usage: outcome.usage)
    }

    /// Answers a prompt built with a result builder with content that follows a dynamic schema.
    @discardableResult
    public func respond(
        schema: GenerationSchema, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<GeneratedContent> {
        try await respond(to: try prompt(), schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    // MARK: Responses of a Generable type.

    /// Answers a prompt with a value of a Generable type.
    @discardableResult
    public func respond<Content: Generable>(
        to prompt: String, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<Content> {
        try await respond(to: Prompt(prompt), generating: type, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Answers a prompt with a value of a Generable type.
    @discardableResult
    public func respond<Content: Generable>(
        to prompt: Prompt, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<Content> {
        let outcome = try await performRequest(
            prompt: prompt, schema: Content.generationSchema, includeSchemaInPrompt: includeSchemaInPrompt, options: options,
            validate: { _ = try Self.decode(Content.self, from: $0) })
        return Response(
            content: try Self.decode(Content.self, from: outcome.rawContent), rawContent: outcome.rawContent,
            transcriptEntries: outcome.transcriptEntries, usage: outcome.usage)
    }

    /// Answers a prompt built with a result builder with a value of a Generable type.
    @discardableResult
    public func respond<Content: Generable>(
        generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<Content> {
        try await respond(to: try prompt(), generating: type, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Converts generated content to the requested type; a mismatch is a `decodingFailure`.
    package static func decode<Content: ConvertibleFromGeneratedContent>(
        _ type: Content.Type, from content: GeneratedContent
    ) throws -> Content {
        do {
            return try Content(content)
        } catch {
            throw GenerationError.decodingFailure(
                GenerationError.Context(debugDescription: "cannot make \(Content.self) from \(content.jsonString): \(error)"))
        }
    }
}
