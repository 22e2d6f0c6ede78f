import Foundation
import LocalLMTestSupport
import LocalLMJinja
import Testing

/// One-feature templates (loops, macros, filters, tests, methods, slicing, whitespace control,
/// errors) from `scripts/goldens/template_snippets.py`, compared with Python jinja2's output or
/// error (`Tests/Fixtures/templates/snippets.json`).
struct ChatTemplateSnippetTests {
    struct Snippet: Sendable, CustomTestStringConvertible {
        let id: Int
        let source: String
        let context: JinjaValue
        let output: String?
        let error: String?
        var testDescription: String { "#\(id) \(source.prefix(60).debugDescription)" }
    }

    static let snippets: [Snippet] = {
        guard case .array(let list)? = try? JinjaValue(jsonData: Fixtures.data("templates/snippets.json")) else { return [] }
        return list.compactMap { item in
            guard case .object(let o) = item, case .int(let id)? = o["id"], case .string(let source)? = o["source"],
                  let context = o["context"]
            else { return nil }
            var output: String?, error: String?
            if case .string(let s)? = o["output"] { output = s }
            if case .string(let s)? = o["error"] { error = s }
            return Snippet(id: id, source: source, context: context, output: output, error: error)
        }
    }()

    @Test func snippetsLoaded() {
        #expect(Self.snippets.count >= 140)
        #expect(Self.snippets.allSatisfy { ($0.output == nil) != ($0.error == nil) })
    }

    @Test(arguments: snippets)
    func rendersLikeJinja2(_ s: Snippet) {
        let result: Result<String, JinjaError>
        do {
            result = .success(try ChatTemplate(source: s.source).render(contextJSON: s.context, options: ChatTemplateConformanceTests.fixedOptions))
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let got):
            if let want = s.output {
                #expect(got == want, "\(firstDifference(got, want))")
            } else {
                Issue.record("jinja2 raised \(s.error ?? "") but Swift rendered \(got.debugDescription)")
            }
        case .failure(let error):
            if let want = s.output {
                Issue.record("Swift raised \(error) but jinja2 rendered \(want.debugDescription)")
            }
        }
    }
}
