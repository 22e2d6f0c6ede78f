import Foundation
import LocalLMTestSupport
import LocalLMJinja
import Testing

/// Every llama.cpp reference template × every conversation in `Tests/Fixtures/templates/contexts.json`,
/// rendered and compared byte for byte with Python jinja2 rendering them the Hugging Face way
/// (goldens from `scripts/goldens/template_goldens.py`). A golden error means Python raised:
/// Swift must raise too.
struct ChatTemplateConformanceTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let template: String
        let contextName: String
        var testDescription: String { "\(template) × \(contextName)" }
    }

    /// The goldens' fixed `strftime_now` instant, 2026-03-07 14:05:09, read in UTC.
    static let fixedOptions = JinjaRenderOptions(
        now: { Date(timeIntervalSince1970: 1_772_892_309) },
        timeZone: TimeZone(identifier: "UTC") ?? .current
    )

    static func loadJSON(_ path: String) throws -> JinjaValue {
        try JinjaValue(jsonData: Fixtures.data(path))
    }

    static func object(_ v: JinjaValue?) -> [(key: String, value: JinjaValue)] {
        if case .object(let o)? = v { return o.pairs }
        return []
    }

    static func string(_ v: JinjaValue?) -> String? {
        if case .string(let s)? = v { return s }
        return nil
    }

    static let goldens: JinjaValue? = try? loadJSON("templates/goldens.json")

    static var goldenCases: [(key: String, value: JinjaValue)] {
        guard case .object(let root)? = goldens else { return [] }
        return object(root["cases"])
    }

    static let allCases: [Case] = goldenCases.flatMap { t in
        object(t.value).map { Case(template: t.key, contextName: $0.key) }
    }

    static let contexts: [String: JinjaValue] = {
        guard case .array(let list)? = try? loadJSON("templates/contexts.json") else { return [:] }
        var out: [String: JinjaValue] = [:]
        for item in list {
            guard case .object(let o) = item, let name = string(o["name"]), let context = o["context"] else { continue }
            out[name] = context
        }
        return out
    }()

    @Test func goldensLoaded() throws {
        #expect(Self.contexts.count == 18)
        #expect(Self.allCases.count == 62 * 18)  // 60 llama.cpp templates, SmolLM2's, the ChatML fallback
        guard case .object(let root)? = Self.goldens else { Issue.record("goldens.json did not load"); return }
        #expect(Self.string(root["date"]) == "2026-03-07T14:05:09")
    }

    @Test(arguments: allCases)
    func rendersLikeJinja2(_ c: Case) throws {
        guard case .object(let root)? = Self.goldens, case .object(let cases)? = root["cases"],
              case .object(let byContext)? = cases[c.template], case .object(let expected)? = byContext[c.contextName],
              let context = Self.contexts[c.contextName]
        else {
            Issue.record("missing golden for \(c.testDescription)")
            return
        }
        let source = try String(contentsOf: Fixtures.url("templates/\(c.template)"), encoding: .utf8)
        let result: Result<String, JinjaError>
        do {
            let template = try ChatTemplate(source: source)
            result = .success(try template.render(contextJSON: context, options: Self.fixedOptions))
        } catch {
            result = .failure(error)
        }
        switch (result, Self.string(expected["output"]), Self.string(expected["error"])) {
        case (.success(let got), let want?, _):
            #expect(got == want, "\(firstDifference(got, want))")
        case (.failure(let error), let want?, _):
            Issue.record("Swift raised \(error) but jinja2 rendered \(want.prefix(200).debugDescription)")
        case (.success(let got), nil, let pythonError?):
            Issue.record("jinja2 raised \(pythonError) but Swift rendered \(got.prefix(200).debugDescription)")
        case (.failure, nil, _?):
            break  // both raise
        default:
            Issue.record("malformed golden for \(c.testDescription)")
        }
    }
}

/// Where two renderings first differ, with some context, for a readable failure.
func firstDifference(_ a: String, _ b: String) -> String {
    let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
    var i = 0
    while i < x.count, i < y.count, x[i] == y[i] { i += 1 }
    func window(_ s: [Unicode.Scalar]) -> String {
        var v = String.UnicodeScalarView()
        v.append(contentsOf: s[max(0, i - 40)..<min(s.count, i + 40)])
        return String(v).debugDescription
    }
    return "first difference at scalar \(i): got \(window(x)) want \(window(y))"
}
