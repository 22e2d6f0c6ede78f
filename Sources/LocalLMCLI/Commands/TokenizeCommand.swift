import ArgumentParser
import Foundation
import LocalLMGGUF
import LocalLMTokenizers

/// `locallm tokenize`: text → token ids, with the model's own tokenizer.
struct TokenizeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokenize",
        abstract: "Print the token ids of a text, as llama.cpp's llama_tokenize gives them."
    )

    @Option(help: "The GGUF model file.")
    var model: String

    @Option(help: "The text to tokenize.")
    var text: String?

    @Option(help: "A UTF-8 file to tokenize.")
    var file: String?

    @Flag(help: "Add BOS (and EOS) by the model's add_bos_token / add_eos_token rule.")
    var addBos = false

    @Flag(help: "Treat control-token text such as <|im_start|> as plain text.")
    var noSpecial = false

    @Flag(help: "Print one JSON line {\"ids\":[...]}.")
    var json = false

    func run() throws {
        try CommandFailure.reporting {
            // Checked here rather than in validate() so that it is a one-line error with status 1.
            if (text == nil) == (file == nil) { throw CommandFailure("give exactly one of --text and --file") }
            let tokenizer = try loadTokenizer(model)
            var bytes: [UInt8]
            if let text { bytes = Array(text.utf8) } else {
                let path = file ?? ""
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw CommandFailure("cannot read \(path)")
                }
                bytes = Array(data)
            }
            let ids = bytes.withUnsafeMutableBufferPointer {
                tokenizer.encode(bytes: UnsafeBufferPointer($0), addSpecial: addBos, parseSpecial: !noSpecial)
            }
            if json {
                print("{\"ids\":[\(ids.map(String.init).joined(separator: ","))]}")
            } else {
                for id in ids {
                    let piece = String(decoding: tokenizer.tokenBytes(id), as: UTF8.self)
                    print("\(id)\t\(piece.debugDescription)")
                }
            }
        }
    }
}

/// Loads a model file's vocabulary.
func loadTokenizer(_ path: String) throws -> Tokenizer {
    let file: GGUFFile
    do {
        file = try GGUFFile(contentsOf: URL(fileURLWithPath: path))
    } catch {
        throw CommandFailure("\(path): \(error)")
    }
    do {
        return Tokenizer(vocabulary: try Vocabulary(gguf: file))
    } catch {
        throw CommandFailure("\(path): \(error)")
    }
}

/// A command error: printed as one line on stderr, exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }

    static func reporting(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
