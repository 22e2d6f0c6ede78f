import Foundation
import LocalLMJinja
import Testing

/// Typed errors with template positions, and resource limits against hostile templates.
struct ChatTemplateErrorTests {
    struct ErrorCase: Sendable, CustomTestStringConvertible {
        let source: String
        let kind: JinjaError.Kind
        let line: Int
        var testDescription: String { source.prefix(50).debugDescription }
    }

    static let cases: [ErrorCase] = [
        ErrorCase(source: "line one\n{% if %}", kind: .syntax, line: 2),
        ErrorCase(source: "a\nb\n{{ 1 + }}", kind: .syntax, line: 3),
        ErrorCase(source: "{% for x in y %}\n{{ x }}", kind: .syntax, line: 2),
        ErrorCase(source: "\n\n{% nosuchtag %}", kind: .syntax, line: 3),
        ErrorCase(source: "{{ 'open", kind: .syntax, line: 1),
        ErrorCase(source: "x\n{{ messages | no_such_filter }}", kind: .unknownFilterOrTest, line: 2),
        ErrorCase(source: "{% if true %}\n\n{{ 1 | no_such_filter }}{% endif %}", kind: .unknownFilterOrTest, line: 3),
        ErrorCase(source: "{{ 1 is no_such_test }}", kind: .unknownFilterOrTest, line: 1),
        ErrorCase(source: "ok\n{{ raise_exception('Only user and assistant roles are supported!') }}", kind: .raised, line: 2),
        ErrorCase(source: "{{ nothing.attr }}", kind: .undefined, line: 1),
        ErrorCase(source: "\n{{ 'a' + 1 }}", kind: .type, line: 2),
        ErrorCase(source: "{{ [1].append(2) }}", kind: .security, line: 1),
        ErrorCase(source: "{{ {'a': 1}.update({}) }}", kind: .security, line: 1),
        ErrorCase(source: "{{ 9223372036854775807 + 1 }}", kind: .type, line: 1),
        ErrorCase(source: "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", kind: .limit, line: 1),
        ErrorCase(source: "{% for a in range(1000) %}{% for b in range(1000) %}{% endfor %}{% endfor %}", kind: .limit, line: 1),
        ErrorCase(source: "{{ range(9223372036854775807) }}", kind: .limit, line: 1),
        ErrorCase(source: "{{ 'x' * 100000000000 }}", kind: .limit, line: 1),
        ErrorCase(source: "{{ [1] * 100000000000 }}", kind: .limit, line: 1),
        ErrorCase(source: "{% set s = 'x' * 1000000 %}{% for i in range(100) %}{{ s }}{% endfor %}", kind: .limit, line: 1),
        ErrorCase(source: "{% set ns = namespace(l=[1]) %}{% for i in range(64) %}{% set ns.l = ns.l + ns.l %}{% endfor %}", kind: .limit, line: 1),
        ErrorCase(source: "{% set s = 'x' * 1000000 %}{{ s | replace('x', s) }}", kind: .limit, line: 1),
        ErrorCase(source: "{% set s = 'x' * 1000000 %}{{ [s] * 1000 }}", kind: .limit, line: 1),
        ErrorCase(source: "{% set s = 'x' * 1000000 %}{{ ([s] * 1000) | join }}", kind: .limit, line: 1),
        ErrorCase(source: "{% set s = 'x' * 1000000 %}{{ ([s] * 1000) | tojson }}", kind: .limit, line: 1),
        ErrorCase(source: "{{ " + String(repeating: "(", count: 5000) + "1" + String(repeating: ")", count: 5000) + " }}", kind: .limit, line: 1),
        ErrorCase(source: "{{ " + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000) + " }}", kind: .limit, line: 1),
        ErrorCase(source: String(repeating: "{% if true %}", count: 5000), kind: .limit, line: 1),
        ErrorCase(source: "{{ " + String(repeating: "not ", count: 5000) + "1 }}", kind: .limit, line: 1),
        ErrorCase(source: "{{ " + String(repeating: "-", count: 5000) + "1 }}", kind: .limit, line: 1),
    ]

    static let limits = JinjaRenderOptions(maxOutputBytes: 1 << 20, maxSteps: 100_000)

    @Test(arguments: cases)
    func raisesTypedError(_ c: ErrorCase) {
        do {
            let text = try ChatTemplate(source: c.source).render(context: [:], options: Self.limits)
            Issue.record("rendered \(text.prefix(80).debugDescription) instead of raising")
        } catch {
            #expect(error.kind == c.kind, "\(error)")
            #expect(error.line == c.line, "\(error)")
        }
    }

    @Test func syntaxErrorsHaveColumns() {
        #expect(throws: JinjaError(.syntax, "expected an expression, got '%}'", line: 2, column: 7)) {
            try ChatTemplate(source: "text\n{% if %}")
        }
    }

    @Test func raiseExceptionCarriesTheMessage() throws {
        let template = try ChatTemplate(source: "{% if messages[0].role != 'user' %}{{ raise_exception('Conversation roles must alternate') }}{% endif %}")
        let messages: JinjaValue = [.object(JinjaObject([("role", "system")]))]
        #expect(throws: JinjaError(.raised, "Conversation roles must alternate", line: 1)) {
            try template.render(context: ["messages": messages])
        }
    }

    /// Found by the jinja fuzzer (`before{{ raise_exception() }}`): without its argument, a TypeError as
    /// Python gives, not a refusal with an empty message.
    @Test func raiseExceptionWithoutAMessageIsATypeError() throws {
        let template = try ChatTemplate(source: "before{{ raise_exception() }}")
        #expect(throws: JinjaError(.type, "raise_exception() missing 1 required positional argument: 'message'", line: 1)) {
            try template.render(context: [:])
        }
        #expect(throws: JinjaError(.raised, "raise_exception called with an empty message", line: 1)) {
            try ChatTemplate(source: "{{ raise_exception('') }}").render(context: [:])
        }
    }

    @Test func strftimeNowReadsTheInjectedClock() throws {
        let options = JinjaRenderOptions(now: { Date(timeIntervalSince1970: 0) }, timeZone: TimeZone(identifier: "UTC") ?? .current)
        let text = try ChatTemplate(source: "{{ strftime_now('%d %B %Y %H:%M') }}").render(context: [:], options: options)
        #expect(text == "01 January 1970 00:00")
    }

    @Test func jsonKeepsKeyOrderAndNumberKinds() throws {
        let value = try JinjaValue(jsonString: #"{"z": 1, "a": 1.0, "m": [true, null, "é\u00e9\ud83d\ude00"]}"#)
        let text = try ChatTemplate(source: "{{ v | tojson }}|{{ v.z is integer }}{{ v.a is float }}").render(context: ["v": value])
        #expect(text == #"{"z": 1, "a": 1.0, "m": [true, null, "éé😀"]}|TrueTrue"#)
    }

    @Test(arguments: [#"{"a": }"#, "[1, 2", #"{"a" 1}"#, "01x", #""\x""#, "", "[" + String(repeating: "[", count: 600)])
    func invalidJSONIsATypedError(_ text: String) {
        #expect(throws: JinjaValue.JSONError.self) { try JinjaValue(jsonString: text) }
    }
}
