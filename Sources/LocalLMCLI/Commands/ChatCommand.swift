import ArgumentParser
import Foundation
import LocalLM

/// `locallm chat [--model M]`: an interactive multi-turn chat with streaming answers.
/// `/reset` starts over, `/save FILE` and `/load FILE` write and read the transcript (Apple's
/// JSON), `/quit` (or end of input) leaves.
struct ChatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "Chat with a local model: multi-turn, streaming; /reset, /save FILE, /load FILE, /quit."
    )

    @Option(name: .long, help: "Instructions (the system message).")
    var instructions: String?

    @OptionGroup var options: ModelOptions

    func newSession(_ model: SystemLanguageModel) -> LanguageModelSession {
        if let instructions { LanguageModelSession(model: model, instructions: instructions) } else {
            LanguageModelSession(model: model)
        }
    }

    func run() async throws {
        let model = try options.availableModel()
        var session = newSession(model)
        session.prewarm()
        let inputIsTerminal = isatty(STDIN_FILENO) != 0
        Console.write("Chatting with \(model.url.lastPathComponent). /reset, /save FILE, /load FILE, /quit.\n")
        while true {
            if inputIsTerminal { Console.write("> ") }
            guard let line = readLine() else {
                if inputIsTerminal { Console.write("\n") }  // end of input: finish the prompt's line
                break
            }
            let input = line.trimmingCharacters(in: .whitespaces)
            if input.isEmpty { continue }
            // Piped input is not echoed by a terminal; print it so the output reads as a chat.
            if !inputIsTerminal { Console.write("> " + input + "\n") }
            if input.hasPrefix("/") {
                let parts = input.split(separator: " ", maxSplits: 1).map(String.init)
                switch parts[0] {
                case "/quit", "/exit":
                    return
                case "/reset":
                    session = newSession(model)
                    Console.write("(new conversation)\n")
                case "/save" where parts.count == 2:
                    do {
                        let data = try JSONEncoder().encode(session.transcript)
                        try data.write(to: URL(fileURLWithPath: parts[1]))
                        Console.write("(saved \(session.transcript.count) entries to \(parts[1]))\n")
                    } catch {
                        Console.write("(cannot save: \(error.localizedDescription))\n")
                    }
                case "/load" where parts.count == 2:
                    do {
                        let data = try Data(contentsOf: URL(fileURLWithPath: parts[1]))
                        let transcript = try JSONDecoder().decode(Transcript.self, from: data)
                        session = LanguageModelSession(model: model, transcript: transcript)
                        Console.write("(loaded \(transcript.count) entries)\n")
                    } catch {
                        Console.write("(cannot load \(parts[1]): \(Self.describe(error)))\n")
                    }
                default:
                    Console.write("(commands: /reset, /save FILE, /load FILE, /quit)\n")
                }
                continue
            }
            do {
                var printed = ""
                for try await snapshot in session.streamResponse(to: input, options: options.generationOptions) {
                    Console.write(String(snapshot.content.dropFirst(printed.count)))
                    printed = snapshot.content
                }
                Console.write("\n")
            } catch {
                Console.write("\n(error: \(error.localizedDescription))\n")
            }
        }
    }

    /// One line saying why a file is not a transcript, without Foundation's multi-line dumps.
    static func describe(_ error: any Error) -> String {
        let text: String =
            switch error {
            case DecodingError.dataCorrupted(let context): "not a transcript: \(context.debugDescription)"
            case DecodingError.keyNotFound(let key, let context):
                "not a transcript: no \"\(key.stringValue)\" at \(path(context))"
            case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
                "not a transcript: \(context.debugDescription) at \(path(context))"
            default: error.localizedDescription
            }
        return text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    private static func path(_ context: DecodingError.Context) -> String {
        context.codingPath.isEmpty ? "the top level" : context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }
}
