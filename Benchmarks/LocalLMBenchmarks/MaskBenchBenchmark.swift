import Foundation
import LocalLMGGUF
import LocalLMGrammar
import LocalLMTokenizers

/// `maskbench`: MaskBench's method (guidance-ai/jsonschemabench, `maskbench/runner.py`) on its
/// development splits, with Qwen2.5's 152k vocabulary, one thread.
///
/// For each case: compile the schema (flexible whitespace: the instances have `", "` and `": "`);
/// for each test instance, write it as Python's `json.dumps(data)` writes it, tokenize it, and
/// before each token compute the mask and check the token is in it, then commit it; at the end an
/// end-of-generation token must be allowed. A case passes when it compiles, every valid instance
/// goes through and every invalid one is refused at some token (or cannot end).
///
/// TTFM = compile + token index + the first mask of the case's first instance. TBM = every other
/// mask (the first mask of a later instance included: its cache is warm, as in a server reusing
/// a compiled schema). Times are this thread's CPU time.
///
/// Data: `$LOCALLM_MASKBENCH_DIR`, else `../shared/maskbench-dev` beside the repository (never copied
/// into it). Vocabulary: `$LOCALLM_MASKBENCH_MODEL`, else Qwen2.5-Coder-0.5B in ~/.cache/locallm/models.
/// Arguments after the suite name: `--filter TEXT` (file names containing it), `--limit N`,
/// `--verbose` (one line per failing case), `--explain-slow MICROS` (the stacks of each slower mask), `--brute-force N`
/// (every N-th mask compared with accepting each token of the vocabulary on a copy of the matcher), `--compact` (compact whitespace), `--closed` (absent
/// `additionalProperties` closes objects, LocalLM's generation default), `--schema-order` (members
/// only in schema order, the generation default), `--infer-types` (an untyped schema admits only the
/// type its keywords describe, the generation default), `--approximate-oneof` (read a `oneOf` whose branches may
/// overlap as `anyOf` instead of refusing it; lets invalid instances through), `--narrow-members` (leave
/// out a further-member route whose value schema is refused; turns those compile errors into
/// validation errors), `--compile-only` (compile each schema and stop: TTFM's compile part alone, for
/// profiling compile time), `--names-from FILE` (only the files named in FILE, one per line), `--compile-times FILE`
/// (each compiled case's compile time in µs and name, one per line).
let maskBenchBenchmark = BenchmarkSuite(name: "maskbench") { arguments in
    func value(after flag: String) -> String? {
        guard let i = arguments.firstIndex(of: flag), i + 1 < arguments.count else { return nil }
        return arguments[i + 1]
    }
    let repo = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let env = ProcessInfo.processInfo.environment
    let dataDir = env["LOCALLM_MASKBENCH_DIR"].map { URL(fileURLWithPath: $0) }
        ?? repo.deletingLastPathComponent().appendingPathComponent("shared/maskbench-dev")
    let modelURL = env["LOCALLM_MASKBENCH_MODEL"].map { URL(fileURLWithPath: $0) }
        ?? FileManager.default.homeDirectoryForCurrentUser
        .appendingPathComponent(".cache/locallm/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf")
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: dataDir.path) else {
        print("skipped: no MaskBench data at \(dataDir.path) (set LOCALLM_MASKBENCH_DIR)")
        return
    }
    guard FileManager.default.fileExists(atPath: modelURL.path) else {
        print("skipped: no vocabulary model at \(modelURL.path) (set LOCALLM_MASKBENCH_MODEL)")
        return
    }
    let tokenizer = Tokenizer(vocabulary: try Vocabulary(gguf: try GGUFFile(contentsOf: modelURL)))
    let table = TokenTable(vocabulary: tokenizer.vocabulary)
    guard let eog = table.endOfGeneration.min() else { print("skipped: the vocabulary has no end-of-generation token"); return }

    var files = names.filter { $0.hasSuffix(".json") }.sorted()
    if let f = value(after: "--filter") { files = files.filter { $0.contains(f) } }
    if let list = value(after: "--names-from"), let text = try? String(contentsOfFile: list, encoding: .utf8) {
        let wanted = Set(text.split(whereSeparator: \.isNewline).map(String.init))
        files = files.filter { wanted.contains($0) }
    }
    if let n = value(after: "--limit").flatMap(Int.init) { files = Array(files.prefix(n)) }
    let compileOnly = arguments.contains("--compile-only")
    var compileTimes = ""
    let repeatStats = arguments.contains("--repeat-stats")
    let verbose = arguments.contains("--verbose")
    let explainAbove = value(after: "--explain-slow").flatMap(Double.init)
    // Every n-th mask compared token by token with accepting each token on a copy of the matcher
    // (slow: the whole vocabulary per mask compared).
    let bruteForceEvery = value(after: "--brute-force").flatMap(Int.init)
    var masksSeen = 0
    // MaskBench's instances are json.dumps output and follow the specification: members in any
    // order, further members where additionalProperties is absent, any type where `type` is absent.
    let options = JSONSchemaOptions(whitespace: arguments.contains("--compact") ? .compact : .flexible,
                                    closesUnlistedObjects: arguments.contains("--closed"),
                                    anyPropertyOrder: !arguments.contains("--schema-order"),
                                    infersTypes: arguments.contains("--infer-types"),
                                    patternsSearch: true,
                                    approximatesOneOf: arguments.contains("--approximate-oneof"),
                                    narrowsRefusedMembers: arguments.contains("--narrow-members"))

    var report = MaskBenchReport()
    var mask = [UInt64](repeating: 0, count: table.maskWordCount)
    for name in files {
        guard let data = FileManager.default.contents(atPath: dataDir.appendingPathComponent(name).path),
              let case_ = try? JSONValue(parsing: String(decoding: data, as: UTF8.self)),
              let schema = case_["schema"], let tests = case_["tests"]?.arrayValue
        else { report.unreadable += 1; continue }
        report.cases += 1
        let t0 = threadCPUNanoseconds()
        let index: GrammarTokenIndex
        do throws(GrammarError) {
            let grammar = try CompiledGrammar(jsonSchema: schema, options: options)
            index = GrammarTokenIndex(grammar: grammar, tokens: table)
        } catch {
            report.compileError(error)
            let seconds = Double(threadCPUNanoseconds() - t0) / 1e9
            if seconds > 1 { print("SLOW COMPILE ERROR \(name): \(seconds) s") }
            if verbose { print("COMPILE \(name): \(error)") }
            continue
        }
        var compileNanos: UInt64? = threadCPUNanoseconds() - t0
        if let c = compileNanos {
            report.compiled(Double(c) / 1000, case: name)
            compileTimes += String(format: "%.0f ", Double(c) / 1000) + name
                + " rules \(index.grammar.grammar.rules.count) positions \(index.grammar.positionCount)\n"
        }
        if compileOnly { report.passing += 1; continue }
        var failures: [String] = []
        var seenStates = Set<[Int32]>()
        for test in tests {
            guard let instance = test["data"], let valid = test["valid"] else { continue }
            let ids = tokenizer.encode(PythonJSON.dumps(instance), addSpecial: false, parseSpecial: false).map(Int.init) + [eog]
            var matcher = GrammarMatcher(index)
            var accepted = true
            for (k, id) in ids.enumerated() {
                let filledBefore = index.filledEntryCount
                let m0 = threadCPUNanoseconds()
                matcher.fillNextTokenBitmask(into: &mask)
                let elapsed = threadCPUNanoseconds() - m0
                if let c = compileNanos {
                    report.ttfm.append(Double(c + elapsed) / 1000)
                    report.ttfmParts.compile.append(Double(c) / 1000)
                    report.ttfmParts.firstMask.append(Double(elapsed) / 1000)
                    compileNanos = nil
                } else {
                    if repeatStats {
                        let repeated = !seenStates.insert(matcher.stateFingerprint).inserted
                        report.repeats.append((Double(elapsed) / 1000, repeated))
                    }
                    report.mask(Double(elapsed) / 1000, cold: index.filledEntryCount > filledBefore, case: name, token: k)
                    if let limit = explainAbove, Double(elapsed) / 1000 > limit {
                        let lines = matcher.stackDescription.split(separator: "\n")
                        print(String(format: "SLOW %.0f µs %@ token %d, %d stacks, %d new entries:", Double(elapsed) / 1000, name, k, lines.count, index.filledEntryCount - filledBefore))
                        for l in lines.prefix(40) { print("    " + l) }
                    }
                }
                masksSeen += 1
                if let every = bruteForceEvery, masksSeen % every == 0 {
                    report.bruteForceChecks += 1
                    if let (t, inMask, accepted) = matcher.firstDisagreement(with: mask) {
                        report.bruteForceDifferences += 1
                        print("BRUTE FORCE \(name) token \(k): vocabulary token \(t) \(String(decoding: table.tokenBytes[t], as: UTF8.self).debugDescription) mask \(inMask) accept \(accepted)")
                    }
                }
                let allowed = mask[id >> 6] & (1 << UInt64(id & 63)) != 0
                let committed = matcher.accept(token: id)
                if allowed != committed { report.maskBugs += 1; if verbose { print("MASK BUG \(name): token \(id) mask \(allowed) accept \(committed)") } }
                if !allowed || !committed {
                    accepted = false
                    if valid == .bool(true) && verbose {
                        let done = tokenizer.decode(ids.prefix(k).map(Int32.init))
                        failures.append("refused valid at token \(k) after \(done.suffix(60).debugDescription)")
                    }
                    break
                }
            }
            if valid == .bool(true) && !accepted { report.validationErrors += 1; failures.append("") }
            if valid == .bool(false) && accepted {
                report.invalidationErrors += 1
                failures.append("accepted invalid \(PythonJSON.dumps(instance).prefix(120).debugDescription)")
            }
        }
        if failures.isEmpty { report.passing += 1 } else if verbose {
            print("FAIL \(name): " + failures.filter { !$0.isEmpty }.joined(separator: " | "))
        }
    }
    report.print()
    if let path = value(after: "--compile-times") { try compileTimes.write(toFile: path, atomically: true, encoding: .utf8) }
}

struct MaskBenchReport {
    var cases = 0, unreadable = 0, passing = 0
    var compileErrors = 0
    var compileErrorsByFeature: [String: Int] = [:]
    var validationErrors = 0, invalidationErrors = 0, maskBugs = 0
    /// Masks compared with brute force (`--brute-force N`), and those that differed.
    var bruteForceChecks = 0, bruteForceDifferences = 0
    var ttfm: [Double] = [], tbm: [Double] = []
    /// TTFM's two parts, for telling a slower compile from a slower first mask.
    var ttfmParts: (compile: [Double], firstMask: [Double]) = ([], [])
    /// Masks that filled a cache entry (a state no grammar over the vocabulary had met), and the rest.
    var tbmCold: [Double] = [], tbmWarm: [Double] = []
    var slowest: [(micros: Double, cold: Bool, case: String, token: Int)] = []
    var slowestCompiles: [(micros: Double, case: String)] = []
    /// With `--repeat-stats`: each later mask's time and whether its matcher state (every stack, and
    /// whether the grammar can end) was met before in the same case.
    var repeats: [(micros: Double, repeated: Bool)] = []

    mutating func compiled(_ micros: Double, case name: String) {
        if slowestCompiles.count < 20 || micros > slowestCompiles[slowestCompiles.count - 1].micros {
            slowestCompiles.append((micros, name))
            slowestCompiles.sort { $0.micros > $1.micros }
            if slowestCompiles.count > 20 { slowestCompiles.removeLast() }
        }
    }

    mutating func mask(_ micros: Double, cold: Bool, case name: String, token: Int) {
        tbm.append(micros)
        if cold { tbmCold.append(micros) } else { tbmWarm.append(micros) }
        if slowest.count < 20 || micros > slowest[slowest.count - 1].micros {
            slowest.append((micros, cold, name, token))
            slowest.sort { $0.micros > $1.micros }
            if slowest.count > 20 { slowest.removeLast() }
        }
    }

    mutating func compileError(_ error: GrammarError) {
        compileErrors += 1
        let key: String
        switch error {
        case .unsupportedSchemaFeature(let feature, _): key = feature
        case .schema(let message, _): key = "schema: " + message
        case .tooLarge: key = "too large"
        case .leftRecursion: key = "left recursion"
        default: key = "other: \(error)"
        }
        compileErrorsByFeature[key, default: 0] += 1
    }

    func print() {
        func p(_ a: [Double], _ q: Double) -> Double { a.isEmpty ? 0 : a[min(a.count - 1, Int(Double(a.count) * q))] }
        let ttfm = self.ttfm.sorted(), tbm = self.tbm.sorted()
        Swift.print("cases \(cases) (unreadable \(unreadable)): passing \(passing), compile errors \(compileErrors), validation errors \(validationErrors), invalidation errors \(invalidationErrors), mask/accept disagreements \(maskBugs)")
        if bruteForceChecks > 0 { Swift.print("masks compared with brute force: \(bruteForceChecks), differing: \(bruteForceDifferences)") }
        Swift.print(String(format: "TTFM p50 %.0f µs p99 %.0f µs max %.0f µs (%d) | TBM p50 %.1f µs p99 %.0f µs p99.9 %.0f µs max %.0f µs (%d masks)",
                           p(ttfm, 0.5), p(ttfm, 0.99), ttfm.last ?? 0, ttfm.count, p(tbm, 0.5), p(tbm, 0.99), p(tbm, 0.999), tbm.last ?? 0, tbm.count))
        let compile = ttfmParts.compile.sorted(), first = ttfmParts.firstMask.sorted()
        Swift.print(String(format: "TTFM parts: compile p50 %.0f µs p99 %.0f µs | first mask p50 %.0f µs p99 %.0f µs",
                           p(compile, 0.5), p(compile, 0.99), p(first, 0.5), p(first, 0.99)))
        let cold = tbmCold.sorted(), warm = tbmWarm.sorted()
        Swift.print(String(format: "TBM cold (filled a cache entry) p50 %.0f µs p99 %.0f µs (%d masks) | warm p50 %.1f µs p99 %.0f µs p99.9 %.0f µs (%d masks)",
                           p(cold, 0.5), p(cold, 0.99), cold.count, p(warm, 0.5), p(warm, 0.99), p(warm, 0.999), warm.count))
        // The tail's size, steadier than its percentiles on a shared host: how many masks pass the
        // goal's bounds, and the CPU time all cold masks took.
        let above500 = tbm.filter { $0 > 500 }.count, above2000 = tbm.filter { $0 > 2000 }.count
        Swift.print(String(format: "TBM above 500 µs: %d (%.2f%%), above 2 ms: %d (%.3f%%) | cold masks' total %.0f ms",
                           above500, 100 * Double(above500) / Double(max(tbm.count, 1)),
                           above2000, 100 * Double(above2000) / Double(max(tbm.count, 1)), tbmCold.reduce(0, +) / 1000))
        if !repeats.isEmpty {
            for limit in [100.0, 500, 1000, 2000] {
                let above = repeats.filter { $0.micros > limit }
                Swift.print(String(format: "masks above %.0f µs: %d, of which in a state met before in the case: %d",
                                   limit, above.count, above.filter(\.repeated).count))
            }
            Swift.print("masks in a state met before: \(repeats.filter(\.repeated).count) of \(repeats.count)")
        }
        Swift.print("slowest masks:")
        for s in slowest { Swift.print(String(format: "  %8.0f µs ", s.micros) + "\(s.cold ? "cold" : "warm") \(s.case) token \(s.token)") }
        Swift.print("slowest compiles (grammar and token index):")
        for s in slowestCompiles { Swift.print(String(format: "  %8.0f µs ", s.micros) + s.case) }
        Swift.print("compile errors by feature:")
        for (k, n) in compileErrorsByFeature.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) { Swift.print("  \(n)  \(k)") }
    }
}

/// JSON text as Python's `json.dumps(data)` writes it: `", "` and `": "` separators, key order kept,
/// non-ASCII and DEL escaped as `\uXXXX` (UTF-16 surrogate pairs above the BMP). Number text is
/// kept as read (the data files were written by Python, so it is already Python's spelling).
enum PythonJSON {
    static func dumps(_ v: JSONValue) -> String {
        var out = ""
        write(v, &out)
        return out
    }

    static func write(_ v: JSONValue, _ out: inout String) {
        switch v {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n
        case .string(let s): quote(s, &out)
        case .array(let a):
            out += "["
            for (i, x) in a.enumerated() { if i > 0 { out += ", " }; write(x, &out) }
            out += "]"
        case .object(let m):
            out += "{"
            for (i, (k, x)) in m.enumerated() { if i > 0 { out += ", " }; quote(k, &out); out += ": "; write(x, &out) }
            out += "}"
        }
    }

    static func quote(_ s: String, _ out: inout String) {
        out += "\""
        for u in s.utf16 {
            switch u {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0x08: out += "\\b"
            case 0x0C: out += "\\f"
            case 0x20...0x7E: out.unicodeScalars.append(Unicode.Scalar(UInt8(u)))
            default:
                let hex = String(u, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        out += "\""
    }
}
