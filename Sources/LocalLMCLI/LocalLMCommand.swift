import ArgumentParser

@main
struct LocalLMCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locallm",
        abstract: "Run local GGUF language models with LocalLM.",
        // One subcommand per file in Commands/, one per line here.
        subcommands: [
            InspectCommand.self,
            TokenizeCommand.self,
            DetokenizeCommand.self,
            TemplateCommand.self,
            GenerateCommand.self,
            LogitsCommand.self,
            TraceCommand.self,
            BenchCommand.self,
            RunCommand.self,
            ChatCommand.self,
            AgentCommand.self,
            ServeCommand.self,
        ]
    )
}
