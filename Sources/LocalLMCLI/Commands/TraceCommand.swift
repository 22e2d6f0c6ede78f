import ArgumentParser
import Foundation
import LocalLMRuntime

/// `locallm trace`: the intermediate tensors of the last forward pass, for comparing the runtime's
/// arithmetic with llama.cpp's op by op (`scripts/fidelity/compare_trace.py`).
struct TraceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Write the last token's intermediate tensors of the final forward pass (one F32 file each).",
        discussion: """
            The prompt ids are evaluated in passes of --batch-size tokens, then --then ids one at a time. \
            Each tensor (named as in llama.cpp's graph: attn_norm-0, Qcur-0, kqv_out-0, l_out-0, …) is \
            written as little-endian F32 to OUT/NAME.f32, and OUT/index.json lists the names in order.
            """,
        shouldDisplay: false
    )

    @Option(help: "Path to a GGUF model.") var model: String
    @Option(help: "Comma-separated prompt token ids.") var ids: String
    @Option(help: "Comma-separated ids appended one at a time after the prompt.") var then: String?
    @Option(help: "Tokens per forward pass for the prompt.") var batchSize: Int = 512
    @Option(help: "Worker threads (default: all cores).") var threads: Int?
    @Option(help: "Output directory.") var out: String
    @Flag(help: "Compute prompt batches in llama.cpp's order of operations (BatchArithmetic.llamaCpp).") var llamaCppArithmetic = false

    func run() async throws {
        let loaded = try ModelLoading.load(model, threads: threads)
        let prompt = try ModelLoading.parseIds(ids)
        let after = try then.map(ModelLoading.parseIds) ?? []
        let sequence = try loaded.makeSequence(contextSize: prompt.count + after.count, batchSize: batchSize,
                                              batchArithmetic: llamaCppArithmetic ? .llamaCpp : .fast)
        var names: [String] = []
        var rows: [String: [Float]] = [:]
        sequence.tracer = { name, row in
            if rows[name] == nil { names.append(name) }
            rows[name] = Array(row)
        }
        try sequence.append(prompt)
        for id in after { try sequence.append(id) }
        let directory = URL(fileURLWithPath: out)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for name in names {
            guard let row = rows[name] else { continue }
            let data = row.withUnsafeBytes { Data($0) }
            try data.write(to: directory.appendingPathComponent(name + ".f32"))
        }
        let logits = sequence.lastLogits.withUnsafeBytes { Data($0) }
        try logits.write(to: directory.appendingPathComponent("result_output.f32"))
        let index = try JSONSerialization.data(withJSONObject: names + ["result_output"])
        try index.write(to: directory.appendingPathComponent("index.json"))
    }
}
