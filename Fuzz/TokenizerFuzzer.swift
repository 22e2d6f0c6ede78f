// libFuzzer target: arbitrary bytes through real vocabularies (llama.cpp's vocab GGUFs in
// Tests/Fixtures/tokenizers/vocab). The first byte picks the vocabulary and the flags.
import Foundation
import LocalLMGGUF
import LocalLMTokenizers

private let tokenizers: [Tokenizer] = {
    let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Tests/Fixtures/tokenizers/vocab")
    // SentencePiece (llama, phi-3) and byte-level BPE with each pre-tokenizer family.
    let names = ["llama-spm", "phi-3", "gpt-2", "llama-bpe", "qwen2", "deepseek-coder", "mpt"]
    let loaded = names.compactMap { name -> Tokenizer? in
        let url = directory.appendingPathComponent("ggml-vocab-\(name).gguf")
        guard let file = try? GGUFFile(contentsOf: url), let vocabulary = try? Vocabulary(gguf: file) else { return nil }
        return Tokenizer(vocabulary: vocabulary)
    }
    guard loaded.count == names.count else { fatalError("vocabulary fixtures missing under \(directory.path)") }
    return loaded
}()

/// Loads the vocabularies before the first input, outside the per-input time limit.
@_cdecl("LLVMFuzzerInitialize")
public func initializeTokenizerFuzzer(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> Int32 {
    _ = tokenizers.count
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTokenizer(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let selector = Int(data[0])
    let tokenizer = tokenizers[selector % tokenizers.count]
    let text = UnsafeBufferPointer(start: data + 1, count: size - 1)
    let ids = tokenizer.encode(bytes: text, addSpecial: selector & 0x40 != 0, parseSpecial: selector & 0x80 != 0)
    let count = tokenizer.vocabulary.count
    for id in ids where id < 0 || Int(id) >= count { fatalError("token id \(id) outside a \(count)-token vocabulary") }
    // The streaming detokenizer yields what `decode` gives, one whole character at a time.
    var stream = StreamingDetokenizer(tokenizer: tokenizer, special: true, stripsLeadingSpace: true)
    var streamed = ""
    for id in ids { streamed += stream.append(id) }
    streamed += stream.finish()
    let decoded = tokenizer.decode(ids, special: true)
    if streamed != decoded { fatalError("streamed \(Array(streamed.utf8)) != decoded \(Array(decoded.utf8))") }
    return 0
}
