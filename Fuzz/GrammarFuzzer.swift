// libFuzzer target: a GBNF grammar, regex or JSON Schema from arbitrary bytes (the first byte picks
// which), compiled, then a short walk: a string the grammar's own generator derives must be accepted
// by the matcher, and a token walk over a small vocabulary must accept every token its mask allows.
@testable import LocalLMGrammar

/// Every byte as a token, some multi-byte pieces that cross JSON and GBNF boundaries, and one
/// end-of-generation token (last).
private let tokens: TokenTable = {
    var pieces = (0...255).map { [UInt8($0)] }
    let words = ["{\"", "\":", "\", \"", "true", "false", "null", "12", "-0.5e3", "\\u00e9", "é", "日本", "\n  ", "]}", "abc"]
    pieces += words.map { Array($0.utf8) }
    pieces.append([])
    return TokenTable(tokenBytes: pieces, endOfGeneration: [pieces.count - 1])
}()

/// SplitMix64 seeded from the input, so a crash reproduces from its input alone.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGrammar(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    let grammar: CompiledGrammar
    do {
        switch data[0] % 4 {
        case 0: grammar = try CompiledGrammar(gbnf: text)
        case 1: grammar = try CompiledGrammar(regex: text)
        case 2: grammar = try CompiledGrammar(jsonSchema: text)
        default: grammar = try CompiledGrammar(jsonSchema: JSONValue(parsing: text), options: JSONSchemaOptions(anyPropertyOrder: true))
        }
    } catch {
        return 0
    }
    var rng = SplitMix(state: UInt64(size) &* 0x100_0000_01B3 &+ UInt64(data[size - 1]))
    let generator = GrammarGenerator(grammar.grammar)
    if generator.isProductive, let sample = generator.generate(using: &rng, depthBudget: 8) {
        var matcher = GrammarMatcher(grammar)
        if !(matcher.accept(bytes: sample) && matcher.canTerminate) {
            fatalError("the matcher rejects \(sample) that the grammar derives")
        }
    }
    let index = GrammarTokenIndex(grammar: grammar, tokens: tokens)
    var matcher = GrammarMatcher(index)
    var mask = [UInt64](repeating: 0, count: tokens.maskWordCount)
    for _ in 0..<24 {
        matcher.fillNextTokenBitmask(into: &mask)
        var allowed: [Int] = []
        for (word, bits) in mask.enumerated() where bits != 0 {
            for bit in 0..<64 where bits & (1 << UInt64(bit)) != 0 { allowed.append(word * 64 + bit) }
        }
        guard let token = allowed.randomElement(using: &rng) else { break }
        if !matcher.accept(token: token) { fatalError("the mask allows token \(token) that accept refuses") }
        if tokens.endOfGeneration.contains(token) { break }
    }
    return 0
}
