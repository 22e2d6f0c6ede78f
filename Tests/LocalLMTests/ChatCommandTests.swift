import Foundation
import LocalLM
import LocalLMTestSupport
import Testing

/// `locallm chat` as a user drives it: the built executable with its input piped, on SmolLM2, greedy.
@Suite("locallm chat", .serialized)
struct ChatCommandTests {
    /// `locallm` is built next to the test bundle by `swift build --build-tests` (same configuration).
    static func executable() throws -> URL {
        let folder = try #require(Bundle.main.executableURL).deletingLastPathComponent()
        let url = folder.appendingPathComponent("locallm")
        try #require(FileManager.default.isExecutableFile(atPath: url.path), "no \(url.path): build the locallm product")
        return url
    }

    /// Runs `locallm chat` with `input` on standard input; returns status, standard output and error.
    private struct Child: @unchecked Sendable {  // handed to one Dispatch thread, then done with
        let process: Process
        let output: FileHandle
    }

    static func chat(_ arguments: [String], input: String, in folder: URL) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = ["chat"] + arguments
        let stdin = Pipe(), stdout = Pipe()
        // Standard error goes to a file, so that neither pipe can fill up and block the child.
        let errorFile = folder.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: errorFile.path, contents: nil)
        let stderr = try FileHandle(forWritingTo: errorFile)
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        // Wait on a Dispatch thread: blocking a cooperative-pool thread for the whole chat would
        // starve the tests running beside this one (the pool has one thread per core).
        let child = Child(process: process, output: stdout.fileHandleForReading)
        let out = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let data = child.output.readDataToEndOfFile()
                child.process.waitUntilExit()
                continuation.resume(returning: data)
            }
        }
        try stderr.close()
        let err = try String(contentsOf: errorFile, encoding: .utf8)
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), err)
    }

    static func responses(_ transcript: Transcript) -> [String] {
        transcript.compactMap { entry -> String? in
            guard case .response(let response) = entry else { return nil }
            return response.segments.compactMap { segment -> String? in
                if case .text(let text) = segment { return text.content }
                return nil
            }.joined()
        }
    }

    static func prompts(_ transcript: Transcript) -> [String] {
        transcript.compactMap { entry -> String? in
            guard case .prompt(let prompt) = entry else { return nil }
            return prompt.segments.compactMap { segment -> String? in
                if case .text(let text) = segment { return text.content }
                return nil
            }.joined()
        }
    }

    @Test func twoTurnsSaveResetLoadAndAThirdTurn() async throws {
        let model = try TestModels.require(TestModels.smolLM2)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chat-\(UUID())", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let saved = folder.appendingPathComponent("saved.json").path
        let after = folder.appendingPathComponent("after.json").path
        let bad = folder.appendingPathComponent("bad.json").path
        try Data(#"{"type":"FoundationModels.Transcript","version":1}"#.utf8).write(to: URL(fileURLWithPath: bad))
        let missing = folder.appendingPathComponent("missing.json").path

        let input = [
            "My name is Ana.", "What is my name?", "/save \(saved)", "/reset", "/load \(saved)",
            "/load \(bad)", "/load \(missing)", "Say it again, please.", "/save \(after)",
        ].joined(separator: "\n") + "\n"
        let run = try await Self.chat(
            ["--model", model.path, "--temperature", "0", "--max-tokens", "12", "--instructions", "You are a concise assistant."],
            input: input, in: folder)
        #expect(run.status == 0, "\(run.stderr)")

        // The saved file is a Transcript: instructions, then two prompts with their responses.
        let first = try JSONDecoder().decode(Transcript.self, from: Data(contentsOf: URL(fileURLWithPath: saved)))
        #expect(first.count == 5)
        guard case .instructions? = first.first else {
            Issue.record("the first entry is not the instructions: \(first)")
            return
        }
        #expect(Self.prompts(first) == ["My name is Ana.", "What is my name?"])
        let answers = Self.responses(first)
        #expect(answers.count == 2 && answers.allSatisfy { !$0.isEmpty })

        // The answers were streamed to standard output, each after its (echoed) prompt.
        let out = run.stdout
        let positions = [
            out.range(of: "> My name is Ana.\n"), answers.first.flatMap { out.range(of: $0) },
            out.range(of: "> What is my name?\n"), answers.last.flatMap { out.range(of: $0) },
        ]
        #expect(positions.allSatisfy { $0 != nil }, "\(out)")
        let starts = positions.compactMap { $0?.lowerBound }
        #expect(starts == starts.sorted(), "\(out)")
        #expect(out.contains("(saved 5 entries to \(saved))\n"))
        #expect(out.contains("(new conversation)\n"))
        #expect(out.contains("(loaded 5 entries)\n"))

        // Bad files: one clear line each, and the chat goes on with the loaded conversation.
        let errorLines = out.split(separator: "\n").filter { $0.contains("(cannot load") }
        #expect(errorLines.count == 2, "\(out)")
        #expect(errorLines.first?.contains(bad) == true && errorLines.first?.contains("not a transcript") == true)
        #expect(errorLines.last?.contains(missing) == true)

        // After /load the next turn continues the restored conversation: the same five entries
        // then the new prompt and its answer.
        let second = try JSONDecoder().decode(Transcript.self, from: Data(contentsOf: URL(fileURLWithPath: after)))
        #expect(second.count == 7)
        #expect(Array(second.prefix(5)) == Array(first))
        #expect(Self.prompts(second).last == "Say it again, please.")
        let third = try #require(Self.responses(second).last)
        #expect(!third.isEmpty && out.contains(third))
        #expect(out.contains("(saved 7 entries to \(after))\n"))
    }
}
