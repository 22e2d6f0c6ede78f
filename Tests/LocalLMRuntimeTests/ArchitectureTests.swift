import Foundation
import LocalLMGGUF
@testable import LocalLMRuntime
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
        #expect(throws: RuntimeError.unknownArchitecture("mamba", supported: ["llama", "gemma3", "qwen2", "qwen3", "gemma2", "phi3", "granite", "olmo2", "smollm3", "qwen3moe", "lfm2", "gemma4"])) {
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

    /// Each further architecture reads its own keys from its tiny file (scripts/make-tiny-models.py
    /// --archs); the goldens (FidelityTests, GenerationTests) check that the forward pass uses them.
    @Test func gemma2ReadsSoftcapsAndAlternatingWindows() throws {
        let c = try TransformerModel(contentsOf: Fixtures.url("runtime/tiny-gemma2.gguf")).configuration
        #expect(c.attentionSoftcap == 5 && c.finalLogitSoftcap == 60 && c.slidingWindow == 8)
        #expect((0..<c.layerCount).map(c.isSliding) == [true, false, true, false])
        #expect(c.embeddingScale == 16 && c.queryScale == 1 / 8 && c.attentionScale == 1)
        #expect(c.hasPostNorms && !c.hasQKNorm && c.activation == .geluTanh && c.ropeBaseSliding == c.ropeBase)
    }

    @Test func graniteReadsItsMultipliers() throws {
        let c = try TransformerModel(contentsOf: Fixtures.url("runtime/tiny-granite.gguf")).configuration
        #expect(c.embeddingScale == 12 && c.residualScale == 0.22 && c.attentionScale == 0.1 && c.logitScale == 8)
        #expect(c.ropePairing == .adjacent && (0..<c.layerCount).allSatisfy(c.usesRoPE))
    }

    @Test func olmo2NormalizesOutputsAndWholeProjections() throws {
        let model = try TransformerModel(contentsOf: Fixtures.url("runtime/tiny-olmo2.gguf"))
        let c = model.configuration
        #expect(!c.hasInputNorms && c.hasPostNorms && c.hasQKNorm && c.qkNormScope == .projection)
        #expect(c.slidingWindow == 8 && (0..<c.layerCount).map(c.isSliding) == [true, true, true, false])
        // The file says rope.freq_base_swa 5000; llama.cpp's olmo2 graph uses the global base anyway.
        #expect(c.ropeBaseSliding == 10000 && c.ropeBase == 10000 && c.ropeFrequencyScaleSliding == 1)
    }

    @Test func smolLM3SkipsRoPEOnEveryFourthLayer() throws {
        let c = try TransformerModel(contentsOf: Fixtures.url("runtime/tiny-smollm3.gguf")).configuration
        #expect((0..<c.layerCount).map(c.usesRoPE) == [true, true, true, false])
    }

    @Test func phi3ReadsPartialRotaryAndLongRoPE() throws {
        let model = try TransformerModel(contentsOf: Fixtures.url("runtime/tiny-phi3.gguf"))
        let c = model.configuration
        #expect(c.ropeDimensions == 48 && c.keyLength == 64 && c.ropeAttentionFactor == 1.19)
        #expect(c.ropeOriginalContextLength == 4096 && c.ropePairing == .neox)
        #expect(model.weights.fusedRows == 2 * 512)
        #expect(model.weights.layers.allSatisfy {
            if case .attention(let a) = $0.mixer, case .fused = a.qkv, case .dense(.fused, _) = $0.ffn { true } else { false }
        })
        // Short factors up to the original context, long ones past it (as llama.cpp picks by n_ctx).
        let short = model.weights.ropeFactors(contextSize: 4096, configuration: c)
        let long = model.weights.ropeFactors(contextSize: 4097, configuration: c)
        #expect(short?.count == 24 && long?.count == 24 && short != long)
    }

    @Test func qwen3MoEReadsItsExperts() throws {
        let model = try TransformerModel(contentsOf: Fixtures.url("runtime/tiny-qwen3moe.gguf"))
        let c = model.configuration
        #expect(c.expertCount == 8 && c.expertsUsed == 2 && c.feedForwardLength == 128 && c.expertWeightsNormalized)
        #expect(c.hasQKNorm && c.qkNormScope == .head)
        // Each expert is its own view of the stacked tensor: consecutive slices, none shared.
        guard case .experts(let moe) = model.weights.layers[0].ffn else {
            Issue.record("layer 0 has no experts")
            return
        }
        #expect(moe.gate.count == 8 && moe.down.count == 8)
        for e in 1..<8 {
            #expect(moe.up[e].matrix.data == moe.up[e - 1].matrix.data + moe.up[e - 1].matrix.byteCount)
        }
    }

    @Test func lfm2ReadsItsConvolutionLayers() throws {
        let model = try TransformerModel(contentsOf: Fixtures.url("runtime/tiny-lfm2.gguf"))
        let c = model.configuration
        #expect(c.convolutionLayers == [true, true, false, true, false] && c.convolutionLength == 3)
        #expect(c.kvHeadCount == 2 && c.hasQKNorm && c.ropePairing == .neox && c.slidingWindow == nil)
        for (l, layer) in model.weights.layers.enumerated() {
            switch layer.mixer {
            case .shortConvolution(let conv):
                #expect(c.isConvolution(l) && conv.taps.count == 3 * 256 && conv.inputProjection.matrix.rows == 3 * 256)
            case .attention:
                #expect(!c.isConvolution(l))
            }
        }
    }

    @Test func gemma4ReadsItsPerKindShapesAndSharedCache() throws {
        let model = try TransformerModel(contentsOf: Fixtures.url("runtime/tiny-gemma4.gguf"))
        let c = model.configuration
        #expect(c.slidingLayers == [true, false, true, false, true, false] && c.slidingWindow == 8)
        #expect(c.keyLength == 128 && c.kvHeadCount == 1 && c.ropeDimensions == 128 && c.ropeBase == 20000)
        #expect(c.slidingAttention == .init(kvHeads: 2, keyLength: 64, valueLength: 64, ropeDimensions: 64))
        #expect(c.ropeBaseSliding == 5000 && !c.ropeFactorsOnSlidingLayers && c.attentionScale == 1)
        #expect(c.keyValueSources == [0, 1, 2, 3, 2, 3])
        #expect(c.feedForwardLengths == [512, 512, 512, 512, 1024, 1024] && c.feedForwardLength == 1024)
        #expect(c.perLayerEmbeddingLength == 32 && c.normalizesValues && c.finalLogitSoftcap == 30)
        #expect(model.weights.ropeFactorsShort?.count == 64)
        for (l, layer) in model.weights.layers.enumerated() {
            guard case .attention(let a) = layer.mixer else { Issue.record("layer \(l) has no attention"); continue }
            if case .queryOnly = a.qkv { #expect(l >= 4 && a.keyNorm == nil) } else { #expect(l < 4) }
            #expect(layer.outputScale != nil && layer.perLayerGate != nil)
        }
        // Layers 4 and 5 keep no cache: 2 sliding layers (2 heads × 64) and 2 global (1 × 128), K and V, F16.
        let sequence = try model.makeSequence(contextSize: 16)
        #expect(sequence.cache.byteCount == 16 * 2 * 2 * (2 * 128 + 2 * 128))
    }

    /// `attention.head_count_kv` 0 for a layer is lfm2's convolution marker; elsewhere it is an error
    /// naming the key, as are per-layer KV head counts that differ.
    @Test func layersWithoutAttentionOnlyInLFM2() throws {
        let base: [(String, GGUFWriter.Value)] = [
            ("general.architecture", .string("llama")), ("llama.embedding_length", .uint32(32)),
            ("llama.block_count", .uint32(2)), ("llama.attention.head_count", .uint32(4)),
            ("llama.feed_forward_length", .uint32(64)), ("llama.attention.layer_norm_rms_epsilon", .float32(1e-5)),
        ]
        let zero = try Self.file(base + [("llama.attention.head_count_kv", .array(.uint32, [.uint32(0), .uint32(2)]))])
        #expect(throws: RuntimeError.invalidValue(key: "llama.attention.head_count_kv",
                                                  reason: "layer 0 has no KV heads, which llama does not support")) {
            try TransformerModel(file: zero)
        }
        let mixed = try Self.file(base + [("llama.attention.head_count_kv", .array(.uint32, [.uint32(4), .uint32(2)]))])
        #expect(throws: RuntimeError.invalidValue(key: "llama.attention.head_count_kv",
                                                  reason: "different KV head counts per layer ([2, 4]) are not supported")) {
            try TransformerModel(file: mixed)
        }
    }

    /// A RoPE scaling this runtime does not implement is a typed error naming it, not a wrong answer.
    @Test func unsupportedRoPEScalingIsNamed() throws {
        let f = try Self.file([
            ("general.architecture", .string("llama")), ("llama.embedding_length", .uint32(32)),
            ("llama.block_count", .uint32(1)), ("llama.attention.head_count", .uint32(4)),
            ("llama.feed_forward_length", .uint32(64)), ("llama.attention.layer_norm_rms_epsilon", .float32(1e-5)),
            ("llama.rope.scaling.type", .string("yarn")),
        ])
        #expect(throws: RuntimeError.invalidValue(key: "llama.rope.scaling.type", reason: "RoPE scaling 'yarn' is not supported")) {
            try TransformerModel(file: f)
        }
    }

    @Test func smolLM2IsLlama() throws {
        let c = try TransformerModel(contentsOf: try TestModels.require(TestModels.smolLM2)).configuration
        #expect(c.architecture == "llama" && c.ropePairing == .adjacent && c.ropeBase == 100000)
        #expect(c.headCount == 9 && c.kvHeadCount == 3 && c.keyLength == 64 && c.layerCount == 30)
    }
}
