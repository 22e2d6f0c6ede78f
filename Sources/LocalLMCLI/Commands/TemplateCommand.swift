import ArgumentParser
import Foundation
import LocalLMGGUF
import LocalLMJinja
import LocalLMTokenizers

/// `locallm template (--model M | --template FILE.jinja) --context CONTEXT.json`: renders a chat
/// template the way Hugging Face does and prints exactly the text, with no added newline.
struct TemplateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "template",
        abstract: "Render a chat template with a JSON context, as Hugging Face's apply_chat_template does.",
        discussion: """
            CONTEXT.json is the whole Jinja context: messages, tools, add_generation_prompt, bos_token, \
            eos_token and any other variables. With --model, the template and bos/eos texts come from the \
            GGUF (ChatML when it has no template) unless the context sets bos_token/eos_token.
            """
    )

    @Option(name: .long, help: "A GGUF model whose tokenizer.chat_template to render.")
    var model: String?

    @Option(name: .long, help: "A Jinja template file to render.")
    var template: String?

    @Option(name: .long, help: "JSON object with the template variables.")
    var context: String

    func validate() throws {
        if (model == nil) == (template == nil) {
            throw ValidationError("give exactly one of --model or --template")
        }
    }

    func run() throws {
        try CommandFailure.reporting {
            guard case .object(let object) = try JinjaValue(jsonData: Self.read(context)) else {
                throw CommandFailure("\(context): the context must be a JSON object")
            }
            var variables: [String: JinjaValue] = [:]
            for (key, value) in object.pairs { variables[key] = value }
            let text: String
            if let model {
                let file: GGUFFile
                do {
                    file = try GGUFFile(contentsOf: URL(fileURLWithPath: model))
                } catch {
                    throw CommandFailure("\(model): \(error)")
                }
                text = try ModelChatTemplate(gguf: file).render(context: variables)
            } else {
                let path = template ?? ""
                text = try ChatTemplate(source: String(decoding: Self.read(path), as: UTF8.self)).render(context: variables)
            }
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }

    static func read(_ path: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: path) else { throw CommandFailure("\(path): cannot read the file") }
        return data
    }
}
