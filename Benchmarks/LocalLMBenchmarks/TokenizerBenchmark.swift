import Foundation
import LocalLMGGUF
import LocalLMTokenizers

// Tokenizer speed: ~1 MB of mixed English, code and CJK text through both test models' tokenizers.
// The text comes from the same generator as scripts/goldens/tokenizer_speed_reference.py, which times
// llama.cpp on it (the byte count and digest printed by both must agree).
//
//   swift run -c release LocalLMBenchmarks tokenizer [--file F]

let tokenizerBenchmark = BenchmarkSuite(name: "tokenizer") { arguments in
    let data: [UInt8]
    if let i = arguments.firstIndex(of: "--file"), i + 1 < arguments.count {
        data = Array(try Data(contentsOf: URL(fileURLWithPath: arguments[i + 1])))
    } else {
        data = Array(TokenizerBenchmarkText.make().utf8)
    }
    print("text: \(data.count) bytes, fnv1a \(TokenizerBenchmarkText.fnv1a(data))")
    let folder = ProcessInfo.processInfo.environment["LOCALLM_MODELS"].map { URL(fileURLWithPath: $0) }
        ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/locallm/models")
    for name in ["SmolLM2-135M-Instruct.Q4_1.gguf", "gemma-3-270m-q4_k_m.gguf"] {
        let url = folder.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            print("\(name): missing (scripts/fetch-models.sh)")
            continue
        }
        let loadStart = ContinuousClock.now
        let tokenizer = Tokenizer(vocabulary: try Vocabulary(gguf: try GGUFFile(contentsOf: url)))
        let load = ContinuousClock.now - loadStart
        var times: [Double] = []
        var count = 0
        for _ in 0..<5 {
            let start = ContinuousClock.now
            count = data.withUnsafeBufferPointer { tokenizer.encode(bytes: $0, addSpecial: false, parseSpecial: true).count }
            times.append((ContinuousClock.now - start).seconds)
        }
        let median = times.sorted()[times.count / 2]
        print(String(format: "LocalLM %@: %d tokens, %.1f ms, %.2f MB/s (median of 5; vocabulary load %.0f ms)",
                     name, count, median * 1000, Double(data.count) / median / 1e6, load.seconds * 1000))
    }
}

enum TokenizerBenchmarkText {
    static let english = ("the of and to in is that for it as was with be by on not he this are or his from at which "
        + "but have an they you were her she there been one all we their has would when if so no what can "
        + "more about time people will could model language token server request memory value function "
        + "quickly however because between important different following without through during").split(separator: " ").map(String.init)
    static let code = [
        "for (int i = 0; i < n; ++i) { sum += a[i] * b[i]; }",
        "def tokenize(text: str) -> list[int]:",
        "    return [vocab[w] for w in text.split() if w in vocab]",
        "let ids = tokenizer.encode(text, addSpecial: true)",
        "if (err != 0) { fprintf(stderr, \"error: %d\\n\", err); return -1; }",
        "SELECT id, name FROM users WHERE age > 30 ORDER BY name;",
        "{\"role\": \"user\", \"content\": \"Hello, world!\", \"id\": 12345}",
        "const result = await fetch(url, { method: 'POST', body: JSON.stringify(data) });",
        "#include <stdio.h>",
        "    x = np.zeros((batch, seq_len, hidden), dtype=np.float32)",
    ]
    static let cjk = [
        "今日は天気がとても良いので、公園を散歩しました。",
        "机器学习模型需要大量的数据来进行训练。",
        "这个函数返回一个整数列表。",
        "東京は日本の首都であり、世界有数の大都市です。",
        "한국어 문장도 포함되어 있습니다.",
        "人工知能の研究は急速に進んでいます。",
    ]

    static func make(target: Int = 1_000_000) -> String {
        var state: UInt64 = 0x853C_49E6_748F_EA9B
        func pick(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        var out = ""
        var size = 0
        while size < target {
            let kind = pick(10)
            var line: String
            if kind < 5 {
                let words = (0..<(5 + pick(15))).map { _ in english[pick(english.count)] }
                let sentence = words.joined(separator: " ")
                line = sentence.prefix(1).uppercased() + sentence.dropFirst() + ". " + String(pick(100_000))
            } else if kind < 8 {
                line = code[pick(code.count)]
            } else {
                line = cjk[pick(cjk.count)]
            }
            let piece = line + (pick(4) == 0 ? "\n" : " ")
            out += piece
            size += piece.utf8.count
        }
        return out
    }

    static func fnv1a(_ data: [UInt8]) -> String {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in data { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

extension Duration {
    fileprivate var seconds: Double {
        let c = components
        return Double(c.seconds) + Double(c.attoseconds) * 1e-18
    }
}
