import Foundation
import LocalLMGGUF
import LocalLMTestSupport
import Testing

/// The two real test models open and show the facts their model cards state.
@Suite struct GGUFRealModelTests {
    @Test func smolLM2() throws {
        let file = try GGUFFile(contentsOf: TestModels.require(TestModels.smolLM2))
        let m = file.metadata
        #expect(m.architecture == "llama")
        #expect(try m.int(m.archKey("block_count")) == 30)
        #expect(try m.int(m.archKey("embedding_length")) == 576)
        #expect(try m.int(m.archKey("attention.head_count")) == 9)
        #expect(try m.int(m.archKey("attention.head_count_kv")) == 3)
        #expect(try m.string("tokenizer.ggml.pre") == "smollm")
        #expect(file.tensor(named: "output.weight") == nil)
        #expect(file.tensor(named: "token_embd.weight")?.type == .q8_0)
        #expect(file.tensor(named: "blk.0.attn_q.weight")?.type == .q4_1)
        #expect(file.tensor(named: "blk.0.attn_norm.weight")?.type == .f32)
        let last = try #require(file.tensors.max { $0.offset < $1.offset })
        #expect(file.dataOffset + last.offset + last.byteCount <= file.fileSize)
    }

    @Test func gemma3() throws {
        let file = try GGUFFile(contentsOf: TestModels.require(TestModels.gemma3))
        let m = file.metadata
        #expect(m.architecture == "gemma3")
        #expect(try m.array("tokenizer.ggml.tokens")?.count == 262_144)
        #expect(try m.string("tokenizer.chat_template") == nil)
        #expect(Set(file.tensors.map(\.type)) == [.q5_0, .q4_K, .q6_K, .q8_0, .f32])
    }
}
