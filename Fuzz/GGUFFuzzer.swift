// libFuzzer target: a GGUF file from arbitrary bytes, then everything that reads its metadata
// before a model runs (summary, vocabulary, chat template). Built and run by scripts/fuzz.sh.
import LocalLMGGUF
import LocalLMJinja
import LocalLMTokenizers

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGGUF(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let file = try? GGUFFile(bytes: bytes) else { return 0 }
    // Every tensor view must lie inside the file (validated at open).
    for tensor in file.tensors {
        let view = file.bytes(of: tensor)
        if view.count > 0 { _ = view[0] &+ view[view.count - 1] }
    }
    if let summary = try? GGUFSummary(file) { _ = summary.jsonText }
    if let vocabulary = try? Vocabulary(gguf: file) {
        let tokenizer = Tokenizer(vocabulary: vocabulary)
        let ids = tokenizer.encode("Hello <|im_start|> wörld 123\n", addSpecial: true)
        _ = tokenizer.decode(ids)
    }
    if let template = try? ModelChatTemplate(gguf: file) {
        let options = JinjaRenderOptions(maxOutputBytes: 1 << 20, maxSteps: 100_000)
        _ = try? template.render(context: FuzzContext.chat, options: options)
    }
    return 0
}
