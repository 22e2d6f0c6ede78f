import Foundation
import LocalLMGGUF
import LocalLMRuntime
import LocalLMTestSupport
import Testing

@Suite struct ArchitectureTests {
    /// A GGUF with `metadata` and a small F32 token embedding.
    static func file(_ metadata: [(String, GGUFWriter.Value)], vocab: UInt64 = 8, width: UInt64 = 32) throws -> GGUFFile {
        var writer = GGUFWriter()
        for (k, v) in metadata { writer.add(k, v) }
        writer.add(.init(name: "token_embd.weight", dimensions: [width, vocab], type: .f32))
        return try GGUFFile(bytes: writer.build().bytes)
    }

    @Test func unknownArchitectureIsNamed() throws {
        let f = try Self.file([("general.architecture", .string("mamba"))])
        #expect(throws: RuntimeError.unknownArchitecture("mamba", supported: ["llama", "gemma3", "qwen2", "qwen3"])) {
            try TransformerModel(file: f)
        }
    }

    @Test func missingKeyIsNamed() throws {
        let f = try Self.file([("general.architecture", .string("llama")), ("llama.embedding_length", .uint32(32))])
        #expect(throws: RuntimeError.missingKey("llama.block_count")) { try TransformerModel(file: f) }
    }

    @Test func absurdValueIsRejected() throws {
        let f = try Self.file([
            ("general.architecture", .string("qwen2")), ("qwen2.embedding_length", .uint32(32)),
            ("qwen2.block_count", .uint32(1)), ("qwen2.attention.head_count", .uint32(4)),
            ("qwen2.attention.head_count_kv", .uint32(3)),
        ])
        #expect(throws: RuntimeError.self) { try TransformerModel(file: f) }
    }

    @Test func missingTensorIsNamed() throws {
        let f = try Self.file([
            ("general.architecture", .string("llama")), ("llama.embedding_length", .uint32(32)),
            ("llama.block_count", .uint32(1)), ("llama.attention.head_count", .uint32(4)),
            ("llama.feed_forward_length", .uint32(64)), ("llama.attention.layer_norm_rms_epsilon", .float32(1e-5)),
        ])
        #expect(throws: RuntimeError.missingTensor("output_norm.weight")) { try TransformerModel(file: f) }
    }

    @Test func tinyQwen3ReadsItsOwnKeys() throws {
        let c = try TransformerModel(contentsOf: Fixtures.url("runtime/tiny-qwen3.gguf")).configuration
        #expect(c.architecture == "qwen3")
        #expect(c.keyLength == 48 && c.valueLength == 48 && c.width == 256 && c.headCount == 4 && c.kvHeadCount == 2)
        #expect(c.hasQKNorm && !c.hasQKVBias && c.ropePairing == .neox)
    }

    @Test func tinyQwen2HasBiases() throws {
        let c = try TransformerModel(contentsOf: Fixtures.url("runtime/tiny-qwen2.gguf")).configuration
        #expect(c.hasQKVBias && !c.hasQKNorm && c.ropePairing == .neox && c.keyLength == 64)
    }

    @Test func gemma3SlidingPattern() throws {
        let c = try TransformerModel(contentsOf: try TestModels.require(TestModels.gemma3)).configuration
        #expect(c.slidingWindow == 512)
        #expect((0..<c.layerCount).filter { !c.isSliding($0) } == [5, 11, 17])
        #expect(c.ropeBaseSliding == 10000 && c.ropeBase == 1_000_000)
        #expect(c.embeddingScale == Float(640).squareRoot())
        #expect(c.queryScale == 1 / Float(256).squareRoot() && c.attentionScale == 1)
        #expect(c.activation == .geluTanh && c.hasPostNorms && c.hasQKNorm)
    }

    @Test func smolLM2IsLlama() throws {
        let c = try TransformerModel(contentsOf: try TestModels.require(TestModels.smolLM2)).configuration
        #expect(c.architecture == "llama" && c.ropePairing == .adjacent && c.ropeBase == 100000)
        #expect(c.headCount == 9 && c.kvHeadCount == 3 && c.keyLength == 64 && c.layerCount == 30)
    }
}
