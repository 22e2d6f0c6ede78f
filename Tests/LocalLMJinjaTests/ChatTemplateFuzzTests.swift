import Foundation
import LocalLMTestSupport
import LocalLMJinja
import Testing

/// Mutated real templates must parse-or-fail and render-or-fail with a typed error, never crash
/// or hang: random deletions, duplications and inserted Jinja fragments, from a fixed seed.
struct ChatTemplateFuzzTests {
    /// SplitMix64, so every run mutates the same way.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let fragments = [
        "{%", "%}", "{{", "}}", "{#", "#}", "{%-", "-%}", "(", ")", "[", "]", "{", "}", "|", "'", "\"", ",",
        " is ", " not ", " in ", " if ", " else ", "loop.", ".items()", "|tojson", "|length", "[::-1]",
        "{% for x in messages %}", "{% endfor %}", "{% if x %}", "{% endif %}", "{% macro m() %}",
        "{% endmacro %}", "{{ m() }}", "{% set ns.x = 1 %}", "**", "//", "%", "~", "-1", "9999999999999999999",
        "\u{0}", "é", "\\", "{% raw %}", "{% break %}", "{{ caller() }}", "namespace(", "range(",
    ]

    static var templates: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.url("templates").path))?
            .filter { $0.hasSuffix(".jinja") }.sorted() ?? []
    }

    @Test(arguments: templates)
    func mutationsNeverCrash(_ name: String) throws {
        let source = Array(try String(contentsOf: Fixtures.url("templates/\(name)"), encoding: .utf8).unicodeScalars)
        let context = try JinjaValue(jsonString: #"""
            {"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"},
                          {"role": "assistant", "content": null, "tool_calls": [{"type": "function",
                           "function": {"name": "f", "arguments": {"a": [1, 2.5, true]}}}]},
                          {"role": "tool", "content": "r"}],
             "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
             "add_generation_prompt": true, "bos_token": "<s>", "eos_token": "</s>"}
            """#)
        let options = JinjaRenderOptions(maxOutputBytes: 1 << 20, maxSteps: 200_000)
        var rng = Generator(state: UInt64(truncatingIfNeeded: name.unicodeScalars.reduce(0) { $0 &* 31 &+ Int($1.value) }))
        for _ in 0..<25 {
            var s = source
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                guard !s.isEmpty else { break }
                let i = Int.random(in: 0..<s.count, using: &rng)
                let n = min(s.count - i, Int.random(in: 1...12, using: &rng))
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: s.removeSubrange(i..<i + n)
                case 1: s.insert(contentsOf: s[i..<i + n], at: i)
                default: s.insert(contentsOf: Self.fragments.randomElement(using: &rng)?.unicodeScalars ?? "".unicodeScalars, at: i)
                }
            }
            var text = String.UnicodeScalarView()
            text.append(contentsOf: s)
            let mutated = String(text)
            do {
                _ = try ChatTemplate(source: mutated).render(contextJSON: context, options: options)
            } catch {
                // A typed error that points inside the template.
                let lines = mutated.unicodeScalars.filter { $0 == "\n" }.count + 1
                #expect(!error.message.isEmpty)
                #expect((0...lines).contains(error.line), "\(error) in a \(lines)-line template")
            }
        }
    }
}
