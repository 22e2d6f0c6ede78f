import ArgumentParser

@main
struct LocalLMCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locallm",
        abstract: "Run local GGUF language models with LocalLM.",
        // One subcommand per file in Commands/; each issue adds its own here.
        subcommands: [TemplateCommand.self]
    )
}
