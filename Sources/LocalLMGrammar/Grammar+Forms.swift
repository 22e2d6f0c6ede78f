/// Grammars around another grammar: fixed text before and after it (a tool call's `<tool_call>`
/// tags or a ```` ```json ```` fence around the call's JSON), one of several such forms, repeated.
/// The engine builds its tool-call grammars this way from the JSON Schema grammar of one call.
extension Grammar {
    /// One piece of a form.
    public enum FormPart: Sendable, Equatable {
        /// Fixed text.
        case text(String)
        /// Up to `maximum` whitespace characters (space, tab, newline), possibly none.
        case whitespace(maximum: Int)
        /// The wrapped grammar (its root).
        case inner
        /// A JSON array of one or more documents of the wrapped grammar: `[` inner (`,` inner)* `]`,
        /// with up to four whitespace characters around each piece.
        case innerList
        /// One or more documents of the wrapped grammar written one after another, each after up to
        /// four whitespace characters, an optional `,` and up to four more: several call objects in
        /// one fence, as small models write them.
        case innerSequence
    }

    /// How many forms the new root holds.
    public enum FormRepetition: Sendable, Equatable {
        /// Exactly one form.
        case one
        /// One form, then any number more, each after `separator`.
        case oneOrMore(separator: [FormPart])
        /// Any number of forms (none too), each after `separator`.
        case zeroOrMore(separator: [FormPart])
    }

    /// A grammar whose root is one of `forms` (each a sequence of parts), repeated as `repetition`
    /// says. The rules of `self` are kept (its root is what `.inner` refers to).
    public func wrapped(in forms: [[FormPart]], repetition: FormRepetition = .one) -> Grammar {
        var rules = self.rules
        func add(_ name: String, _ alternatives: [[Symbol]]) -> Int {
            rules.append(Rule(name: name, alternatives: alternatives))
            return rules.count - 1
        }
        var whitespaceRules: [Int: Int] = [:]
        var listRule: Int?
        var sequenceRule: Int?
        func symbols(_ parts: [FormPart]) -> [Symbol] {
            var out: [Symbol] = []
            for part in parts {
                switch part {
                case .text(let text):
                    out += text.utf8.map { .bytes(ByteSet($0)) }
                case .inner:
                    out.append(.rule(root))
                case .innerList:
                    if let list = listRule {
                        out.append(.rule(list))
                        continue
                    }
                    let space = symbols([.whitespace(maximum: 4)])
                    let rest = add("form-list-rest", [])
                    rules[rest].alternatives = [space + symbols([.text("]")]), space + symbols([.text(",")]) + space + [.rule(root), .rule(rest)]]
                    let list = add("form-list", [symbols([.text("[")]) + space + [.rule(root), .rule(rest)]])
                    listRule = list
                    out.append(.rule(list))
                case .innerSequence:
                    if let sequence = sequenceRule {
                        out.append(.rule(sequence))
                        continue
                    }
                    let space = symbols([.whitespace(maximum: 4)])
                    let comma = add("form-sequence-comma", [[], symbols([.text(",")])])
                    let rest = add("form-sequence-rest", [])
                    rules[rest].alternatives = [[], space + [.rule(comma)] + space + [.rule(root), .rule(rest)]]
                    let sequence = add("form-sequence", [[.rule(root), .rule(rest)]])
                    sequenceRule = sequence
                    out.append(.rule(sequence))
                case .whitespace(let maximum):
                    guard maximum > 0 else { continue }
                    if let rule = whitespaceRules[maximum] {
                        out.append(.rule(rule))
                        continue
                    }
                    // ws_n ::= "" | [ \t\n] ws_(n-1), built from the shortest up.
                    var space = ByteSet()
                    for byte: UInt8 in [0x20, 0x09, 0x0A] { space.insert(byte) }
                    var previous: Int? = nil
                    for n in 1...maximum {
                        let tail: [Symbol] = previous.map { [.rule($0)] } ?? []
                        previous = add("form-space-\(n)", [[], [.bytes(space)] + tail])
                    }
                    if let previous {
                        whitespaceRules[maximum] = previous
                        out.append(.rule(previous))
                    }
                }
            }
            return out
        }
        let form = add("form", forms.map(symbols))
        let newRoot: Int
        switch repetition {
        case .one:
            newRoot = form
        case .oneOrMore(let separator):
            let more = add("form-more", [])
            rules[more].alternatives = [[], symbols(separator) + [.rule(form), .rule(more)]]
            newRoot = add("form-root", [[.rule(form), .rule(more)]])
        case .zeroOrMore(let separator):
            let more = add("form-more", [])
            rules[more].alternatives = [[], symbols(separator) + [.rule(form), .rule(more)]]
            newRoot = more
        }
        var wrapped = Grammar(rules: rules, root: newRoot)
        wrapped.countedChains = countedChains
        wrapped.openTextRules = openTextRules
        return wrapped
    }

    /// The grammar of no text at all: every byte is refused. A lazy constraint with it refuses any
    /// token that completes a trigger (tool-call openers when tools are disallowed).
    public static var nothing: Grammar {
        Grammar(rules: [Rule(name: "nothing", alternatives: [[.bytes(ByteSet())]])], root: 0)
    }
}

extension Grammar {
    /// The grammar of the JSON documents a schema allows, before compilation: to wrap in forms.
    public init(jsonSchema schema: JSONValue, whitespace: JSONWhitespace) throws(GrammarError) {
        self = try JSONSchemaCompiler.compile(schema, whitespace: whitespace)
    }
}
