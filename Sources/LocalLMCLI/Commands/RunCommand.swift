import ArgumentParser
import Foundation
import LocalLM

/// `locallm run "prompt" [--instructions …]`: answers one prompt, streaming the answer.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Answer one prompt with a local model, streaming the answer."
    )

    @Argument(help: "The prompt.")
    var prompt: String

    @Option(name: .long, help: "Instructions (the system message).")
    var instructions: String?

    @OptionGroup var options: ModelOptions

    func run() async throws {
        let model = try options.availableModel()
        let session =
            if let instructions { LanguageModelSession(model: model, instructions: instructions) } else {
                LanguageModelSession(model: model)
            }
        var printed = ""
        for try await snapshot in session.streamResponse(to: prompt, options: options.generationOptions) {
            // Snapshots are cumulative: print what is new.
            Console.write(String(snapshot.content.dropFirst(printed.count)))
            printed = snapshot.content
        }
        Console.write("\n")
    }
}
