import Foundation
import LocalLMGGUF
import LocalLMTestSupport
import Testing

/// `locallm inspect`'s figures against gguf-py, through the summary and through the built executable.
@Suite struct GGUFSummaryTests {
    static func model(_ label: String) throws -> URL {
        try TestModels.require(label == "smollm2" ? TestModels.smolLM2 : TestModels.gemma3)
    }

    static func expected(_ label: String) throws -> [String: Any] {
        let golden = try #require(try JSONSerialization.jsonObject(with: Fixtures.data("gguf/\(label).json")) as? [String: Any])
        return try #require(golden["inspect"] as? [String: Any])
    }

    /// Compares an inspect JSON object (ours) with the gguf-py figures.
    static func check(_ ours: [String: Any], against golden: [String: Any], _ label: String) {
        for key in ["architecture", "name", "tokenizer_model"] {
            #expect(ours[key] as? String == golden[key] as? String, "\(label) \(key)")
        }
        for key in ["context_length", "embedding_length", "block_count", "head_count", "head_count_kv",
                    "feed_forward_length", "vocab_size", "file_size", "parameter_count"] {
            #expect(ours[key] as? Int != nil && ours[key] as? Int == golden[key] as? Int, "\(label) \(key)")
        }
        let heads = golden["head_count"] as? Int ?? 0
        let headSize = golden["key_length"] as? Int ?? (golden["embedding_length"] as? Int ?? 0) / max(heads, 1)
        #expect(ours["key_length"] as? Int == headSize, "\(label) key_length")
        let rope = (ours["rope_freq_base"] as? NSNumber).map { Float($0.doubleValue).bitPattern }
        #expect(rope != nil && rope == (golden["rope_freq_base_float32_bits"] as? NSNumber)?.uint32Value, "\(label) rope")
        #expect(ours["tensor_types"] as? [String: Int] == golden["tensor_types"] as? [String: Int], "\(label) tensor_types")
    }

    @Test(arguments: ["smollm2", "gemma3"])
    func summaryMatchesGGUFPy(label: String) throws {
        let summary = try GGUFSummary(GGUFFile(contentsOf: Self.model(label)))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(summary.jsonText.utf8)) as? [String: Any])
        Self.check(object, against: try Self.expected(label), label)
        #expect(summary.tensorCount == summary.tensorTypes.map(\.count).reduce(0, +))
    }

    @Test func headSizeFallsBackToWidthOverHeadsAndPerLayerArrays() throws {
        var w = GGUFWriter()
        w.add("general.architecture", .string("toy"))
        w.add("toy.embedding_length", .uint32(96))
        w.add("toy.attention.head_count", .array(.int32, [.int32(6), .int32(6)]))
        w.add("toy.feed_forward_length", .array(.int32, [.int32(10), .int32(20)]))
        w.add("general.name", .string("quote \" and\nnewline"))
        let file = try GGUFFile(bytes: w.build().bytes)
        let error = try #require(throws: GGUFError.self) { try GGUFSummary(file) }
        #expect(error.key == "toy.feed_forward_length")

        w.metadata.removeAll { $0.0 == "toy.feed_forward_length" }
        let summary = try GGUFSummary(GGUFFile(bytes: w.build().bytes))
        #expect(summary.headCount == 6 && summary.headSize == 16 && summary.feedForwardLength == nil)
        #expect(summary.vocabSize == nil && summary.ropeFreqBase == nil && summary.parameterCount == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(summary.jsonText.utf8)) as? [String: Any])
        #expect(object["name"] as? String == "quote \" and\nnewline")
        #expect(object["vocab_size"] is NSNull)
    }

    // MARK: The built executable

    /// `locallm` is built next to the test bundle by `swift build` / `swift test` (same configuration).
    static func executable() throws -> URL {
        let folder = try #require(Bundle.main.executableURL).deletingLastPathComponent()
        let url = folder.appendingPathComponent("locallm")
        try #require(FileManager.default.isExecutableFile(atPath: url.path), "no \(url.path): build the locallm product (swift build)")
        return url
    }

    struct Run {
        var status: Int32
        var exited: Bool
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, exited: process.terminationReason == .exit,
                   stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test(arguments: ["smollm2", "gemma3"])
    func inspectCommandPrintsGGUFPyFigures(label: String) throws {
        let path = try Self.model(label).path
        let json = try Self.run(["inspect", path, "--json"])
        #expect(json.exited && json.status == 0, "\(json.stderr)")
        #expect(json.stdout.split(separator: "\n").count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let golden = try Self.expected(label)
        Self.check(object, against: golden, label)

        let text = try Self.run(["inspect", path])
        #expect(text.exited && text.status == 0 && text.stderr.isEmpty)
        #expect(text.stdout.contains("layers"))
        #expect(text.stdout.contains("vocabulary size      \(golden["vocab_size"] as? Int ?? -1)\n"))
        #expect(text.stdout.contains("parameters           \(golden["parameter_count"] as? Int ?? -1) "))
    }

    @Test func inspectCommandRejectsBadFilesWithOneLineAndStatusOne() throws {
        var damaged = [UInt8](try Data(contentsOf: Self.model("smollm2"), options: .alwaysMapped).prefix(4096))
        damaged.patch(UInt64(0), at: 8)  // tensor count: this prefix has room for none
        damaged.patch(UInt64(1) << 50, at: 16)  // kv count
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("damaged-\(UUID()).gguf")
        try Data(damaged).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        for path in [url.path, url.path + ".missing"] {
            let run = try Self.run(["inspect", path])
            #expect(run.exited && run.status == 1, "\(path): \(run.status) \(run.stderr)")
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.hasSuffix("\n") && run.stderr.dropLast().split(separator: "\n").count == 1, "\(run.stderr)")
            #expect(run.stderr.contains(path))
        }
        let bad = try Self.run(["inspect", url.path, "--json"])
        #expect(bad.stderr.contains("offset 0x10 (16)") && bad.stderr.contains("metadata key/value count"), "\(bad.stderr)")
    }
}
