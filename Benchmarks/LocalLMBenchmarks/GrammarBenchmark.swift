import Foundation
import LocalLMGrammar

/// `grammar`: schema compile time and token-mask latency on SmolLM2's 49k vocabulary.
/// Each schema is walked by random sampling from its own masks (a stand-in for a model: every
/// step picks uniformly among allowed tokens, and ends when allowed with probability 1/4).
/// Cold = first walk (caches filling); warm = later walks. Times are this thread's CPU time, so
/// figures stay meaningful on a shared machine (on an idle one, wall time is the same).
let grammarBenchmark = BenchmarkSuite(name: "grammar") { _ in
    let url = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Fixtures/grammar/smollm2_tokens.bin")
    let start = Date()
    let table = try GrammarBenchmarkSupport.loadTokenTable(url)
    print(String(format: "token table + trie (%d tokens): %.1f ms", table.count, Date().timeIntervalSince(start) * 1000))
    for (name, schema) in GrammarBenchmarkSupport.schemas {
        var compile: [Double] = []
        var grammar: CompiledGrammar? = nil
        for _ in 0..<20 {
            let t0 = threadCPUNanoseconds()
            grammar = try CompiledGrammar(jsonSchema: schema)
            compile.append(Double(threadCPUNanoseconds() - t0) / 1000)
        }
        guard let grammar else { continue }
        // Cold: caches fill as masks need them.
        try measureMasks(name + " (lazy cache)", GrammarTokenIndex(grammar: grammar, tokens: table), table, compile)
        // Precomputed: every reachable state cached up front.
        let index = GrammarTokenIndex(grammar: grammar, tokens: table)
        let p0 = threadCPUNanoseconds()
        let states = index.precompute()
        print(String(format: "%@: precompute %d states %.0f ms", name, states, Double(threadCPUNanoseconds() - p0) / 1e6))
        try measureMasks(name + " (precomputed)", index, table, compile)
    }
}

func measureMasks(_ name: String, _ index: GrammarTokenIndex, _ table: TokenTable, _ compileTimes: [Double]) throws {
        var compile = compileTimes
        var rng = SplitMix64(seed: 42)
        var cold: [Double] = [], warm: [Double] = []
        var tokensOut = 0
        for walk in 0..<30 {
            var m = GrammarMatcher(index)
            var mask = [UInt64](repeating: 0, count: table.maskWordCount)
            for _ in 0..<400 {
                let t0 = threadCPUNanoseconds()
                m.fillNextTokenBitmask(into: &mask)
                let us = Double(threadCPUNanoseconds() - t0) / 1000
                if walk == 0 { cold.append(us) } else { warm.append(us) }
                guard let t = GrammarBenchmarkSupport.pick(mask, table: table, rng: &rng) else { break }
                if !m.accept(token: t) { print("  BUG: masked token \(t) rejected"); break }
                tokensOut += 1
                if m.isCompleted { break }
            }
        }
        compile.sort(); cold.sort(); warm.sort()
        func p(_ a: [Double], _ q: Double) -> Double { a.isEmpty ? 0 : a[min(a.count - 1, Int(Double(a.count) * q))] }
        print(String(format: "%@: compile p50 %.0f µs | cold mask p50 %.1f µs p99 %.0f µs max %.0f µs (%d) | warm mask p50 %.1f µs p99 %.1f µs (%d masks) | cache states %d",
                     name, p(compile, 0.5), p(cold, 0.5), p(cold, 0.99), cold.last ?? 0, cold.count,
                     p(warm, 0.5), p(warm, 0.99), warm.count, index.cachedStateCount))
}

enum GrammarBenchmarkSupport {
    static let schemas: [(String, String)] = [
        ("tool-call", #"""
        {"type":"object","properties":{"name":{"const":"get_weather"},"arguments":{"type":"object","properties":{"location":{"type":"string","minLength":1,"maxLength":40},"unit":{"enum":["celsius","fahrenheit"]},"days":{"type":"integer","minimum":1,"maximum":14}},"required":["location","unit"],"additionalProperties":false}},"required":["name","arguments"],"additionalProperties":false}
        """#),
        ("person", #"""
        {"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0,"maximum":150},"email":{"type":"string","format":"uuid"},"tags":{"type":"array","items":{"type":"string"},"maxItems":5},"address":{"$ref":"#/$defs/address"},"score":{"type":"number"}},"required":["name","age","tags"],"additionalProperties":false,"$defs":{"address":{"type":"object","properties":{"street":{"type":"string"},"zip":{"type":"string","pattern":"^[0-9]{5}$"}},"required":["street"]}}}
        """#),
        ("decimal ranges", #"""
        {"type":"object","properties":{"level":{"type":"number","minimum":0.5,"maximum":2.25},"offset":{"type":"number","exclusiveMinimum":-1.5,"exclusiveMaximum":-0.25},"price":{"type":"number","minimum":0,"maximum":99.99}},"required":["level","offset","price"],"additionalProperties":false}
        """#),
        ("tree", #"""
        {"$ref":"#/$defs/node","$defs":{"node":{"type":"object","properties":{"value":{"type":"integer"},"children":{"type":"array","items":{"$ref":"#/$defs/node"},"maxItems":3}},"required":["value","children"]}}}
        """#),
    ]

    static func loadTokenTable(_ url: URL) throws -> TokenTable {
        let data = try Data(contentsOf: url)
        let bytes = [UInt8](data)
        func u32(_ o: Int) -> Int { Int(bytes[o]) | Int(bytes[o + 1]) << 8 | Int(bytes[o + 2]) << 16 | Int(bytes[o + 3]) << 24 }
        let count = u32(0), eos = u32(4)
        var o = 8
        var tokens: [[UInt8]] = [], special = Set<Int>()
        for id in 0..<count {
            let type = bytes[o]
            let len = Int(bytes[o + 1]) | Int(bytes[o + 2]) << 8
            tokens.append(Array(bytes[(o + 3)..<(o + 3 + len)]))
            if type == 3 || type == 4 { special.insert(id) }
            o += 3 + len
        }
        // ChatML's <|im_end|> ends a turn as well as the EOS id.
        var eog: Set<Int> = [eos]
        if let imEnd = tokens.firstIndex(of: Array("<|im_end|>".utf8)) { eog.insert(imEnd) }
        return TokenTable(tokenBytes: tokens, endOfGeneration: eog, special: special)
    }

    static func pick(_ mask: [UInt64], table: TokenTable, rng: inout SplitMix64) -> Int? {
        var allowed: [Int] = []
        for (w, word) in mask.enumerated() where word != 0 {
            var x = word
            while x != 0 { allowed.append(w * 64 + x.trailingZeroBitCount); x &= x - 1 }
        }
        if allowed.isEmpty { return nil }
        let eogIDs = Array(table.endOfGeneration)
        let eog = allowed.filter { eogIDs.contains($0) }
        if !eog.isEmpty && rng.next() % 4 == 0 { return eog[0] }
        let normal = allowed.filter { !eogIDs.contains($0) }
        if normal.isEmpty { return eog.first }
        return normal[Int(rng.next() % UInt64(normal.count))]
    }
}

func threadCPUNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}
