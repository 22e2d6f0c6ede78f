import LocalLMGrammar
import LocalLMJSON

/// How a model family writes tool calls, and how the engine renders, constrains and reads them.
/// The family is chosen from the chat template's source, as llama.cpp's `common/chat.cpp` does:
///
/// | family    | templates                          | a call                                                    |
/// |-----------|------------------------------------|-----------------------------------------------------------|
/// | `hermes`  | Qwen2.5, Qwen3, SmolLM3, Hermes    | `<tool_call>{"name": …, "arguments": {…}}</tool_call>`    |
/// | `llama3`  | Llama 3.1 / 3.2 / 3.3              | `{"name": …, "parameters": {…}}`, or after `<|python_tag|>` |
/// | `mistral` | Mistral, Devstral                  | `[TOOL_CALLS][{"name": …, "arguments": {…}}, …]`          |
/// | `toolCallToken` | Granite                      | `<|tool_call|>[{"name": …, "arguments": {…}}, …]`         |
/// | `phi4Mini` | Phi-4-mini                        | `<|tool_call|>[{"name": …, "arguments": {…}}, …]<|/tool_call|>` |
/// | `lfm2`    | LFM2                               | `<|tool_call_start|>[{"name": …, "arguments": {…}}]<|tool_call_end|>` |
/// | `generic` | templates that know no tools (Gemma 3) | `{"tool_calls": [{"name": …, "arguments": {…}}]}`     |
///
/// Small models do not always write their family's markers: Qwen2.5-Coder-0.5B often answers with
/// the call's JSON bare, or in a ```` ```json ```` fence. So besides the family's opener anywhere in
/// the output, a bare call object (or one in a fence) at the start of the turn opens a call too.
/// Each opener is a trigger of the lazy call grammar (`GrammarConstraint.Activation.lazyFromTrigger`),
/// whose language starts at the trigger's first byte: once a call has started, the name is one of
/// the offered tools and the arguments match that tool's schema. Free text stays free.
package struct ToolCallFormat: Sendable, Equatable {
    package enum Family: String, Sendable, CaseIterable {
        case hermes, llama3, mistral, toolCallToken, phi4Mini, lfm2, generic
    }

    package let family: Family

    package static let hermes = ToolCallFormat(family: .hermes)

    package init(family: Family) {
        self.family = family
    }

    /// The family a chat template's source implies (markers as llama.cpp's `common/chat.cpp` looks
    /// for them). A template that knows no tool format gets Hermes when it is ChatML (its tags are
    /// plain text there, and ChatML models are trained on it) and the generic JSON format otherwise.
    package init(templateSource source: String) {
        if source.contains("<tool_call>") {
            family = .hermes
        } else if source.contains("[TOOL_CALLS]") {
            family = .mistral
        } else if source.contains("<|tool|>") && source.contains("<|/tool|>") {
            // Phi-4-mini: the functions go in a system message's `tools` string between these
            // markers (the template knows no calls; Microsoft's model card gives their form).
            family = .phi4Mini
        } else if source.contains("<|tool_call_start|>") || source.contains("<|tool_list_start|>") {
            family = .lfm2
        } else if source.contains("<|tool_call|>") {
            family = .toolCallToken
        } else if source.contains("<|start_header_id|>") && (source.contains("<|python_tag|>") || source.contains("ipython")) {
            family = .llama3
        } else if source.contains("<|im_start|>") {
            family = .hermes
        } else {
            family = .generic
        }
    }

    /// The family's own opener, written before the calls (nil: the calls are bare JSON).
    package var opener: String? {
        switch family {
        case .hermes: "<tool_call>"
        case .llama3: "<|python_tag|>"
        case .mistral: "[TOOL_CALLS]"
        case .toolCallToken, .phi4Mini: "<|tool_call|>"
        case .lfm2: "<|tool_call_start|>"
        case .generic: nil
        }
    }

    /// The family's closer after a call (or list of calls), if it has one.
    package var closer: String? {
        switch family {
        case .hermes: "</tool_call>"
        case .lfm2: "<|tool_call_end|>"
        case .phi4Mini: "<|/tool_call|>"
        default: nil
        }
    }

    /// The key of a call's arguments object.
    package var argumentsKey: String { family == .llama3 ? "parameters" : "arguments" }

    /// Marker texts of every family: tokens with these texts are text to the call grammar, even where
    /// the vocabulary marks them as control tokens (`[TOOL_CALLS]`, `<|python_tag|>`).
    package static let markers = ["<tool_call>", "</tool_call>", "<|python_tag|>", "[TOOL_CALLS]", "<|tool_call|>",
                                  "<|/tool_call|>", "<|tool_call_start|>", "<|tool_call_end|>"]

    /// Triggers that open a call anywhere in the output.
    package var anywhereTriggers: [String] { opener.map { [$0] } ?? [] }

    /// Triggers that open a call at the start of the turn: a bare call object (or the generic
    /// format's wrapper), or one in a fence, with the whitespace models put between `{` and the key;
    /// outside the generic format, a JSON list of calls too (`[{"name"`, bare or fenced: what
    /// Qwen2.5-Coder-1.5B writes for a question that needs several calls).
    package var startTriggers: [String] {
        let key = family == .generic ? "\"tool_calls\"" : "\"name\""
        let braces = ["{", "{ ", "{\n", "{\n  ", "{\n    ", "{\n\t"].map { $0 + key }
        let lists = family == .generic ? [] : ["[", "[ ", "[\n", "[\n  ", "[\n    ", "[\n\t"].flatMap { open in braces.map { open + $0 } }
        let fences = ["", "```json\n", "```json\n\n", "```\n", "```json "]
        return fences.flatMap { fence in (braces + lists).map { fence + $0 } }
    }

    /// The start-of-turn openers masked when calls are disallowed: a bare `{` and a fence holding
    /// one. Masking only the full openers (`{"name"`) let Qwen2.5-Coder-0.5B, asked to answer after
    /// a tool's output, write `{"name**: "GetWeather", …}` instead: the call, misspelt, as the
    /// answer. With tools disallowed, an answer that opens with a JSON object is a call attempt in
    /// every family here (a JSON answer is what a schema is for); so is a list of objects (`[{`),
    /// the form a list of calls takes. Code fences of other languages, and `{` later in the answer,
    /// stay free.
    package var disallowedStartTriggers: [String] {
        let objects = ["{"] + ["", " ", "\n", "\n  ", "\n    ", "\n\t"].map { "[" + $0 + "{" }
        return ["", "```json\n", "```json\n\n", "```\n", "```json "].flatMap { fence in
            (fence.isEmpty ? [""] : ["", " ", "  ", "    ", "\t"]).flatMap { space in objects.map { fence + space + $0 } }
        }
    }

    /// Whether `text` (the output so far, all of it) could still open a call at the turn's start.
    package func couldStartCall(_ text: String) -> Bool {
        let trimmed = Array(text.utf8.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D })
        return startTriggers.contains { Array($0.utf8).starts(with: trimmed) }
    }

    /// Where the call begins in `text` (the free output, ending inside the opener): at the last
    /// opener, or after leading whitespace when the output opens with a bare call.
    package func callStart(in text: String) -> String.Index {
        if let opener, let open = text.range(of: opener, options: .backwards) { return open.lowerBound }
        return text.firstIndex { !$0.isWhitespace } ?? text.endIndex
    }

    // MARK: Grammars

    /// The JSON Schema of one call: an `anyOf` with one object per tool, whose `name` is a constant
    /// and whose arguments are the tool's schema. The tools' `$defs` move to the root, where their
    /// `$ref`s point.
    package func callSchema(for tools: [ChatTool]) -> JSONValue {
        var definitions: [(String, JSONValue)] = []
        let choices: [JSONValue] = tools.map { tool in
            var parameters = tool.parameters
            if case .object(var members) = parameters {
                if let defs = members.first(where: { $0.0 == "$defs" })?.1.objectMembers {
                    for (name, def) in defs where !definitions.contains(where: { $0.0 == name }) { definitions.append((name, def)) }
                    members.removeAll { $0.0 == "$defs" }
                }
                parameters = .object(members)
            }
            return .object([
                ("type", .string("object")),
                ("properties", .object([("name", .object([("const", .string(tool.name))])), (argumentsKey, parameters)])),
                ("required", .array([.string("name"), .string(argumentsKey)])),
                ("additionalProperties", .bool(false)),
            ])
        }
        var root: [(String, JSONValue)] = [("anyOf", .array(choices))]
        if !definitions.isEmpty { root.append(("$defs", .object(definitions))) }
        return .object(root)
    }

    private static let space = Grammar.FormPart.whitespace(maximum: 4)

    /// The family's own form of a call (or list of calls), from its first byte. (Llama 3.x writes a
    /// bare call; `<|python_tag|>` before one is read too, as llama.cpp reads it.)
    private var ownForm: [Grammar.FormPart] {
        let s = Self.space
        switch family {
        case .hermes: return [.text("<tool_call>"), s, .inner, s, .text("</tool_call>")]
        case .llama3: return [.inner]
        case .mistral: return [.text("[TOOL_CALLS]"), s, .innerList]
        case .toolCallToken: return [.text("<|tool_call|>"), s, .innerList]
        case .phi4Mini: return [.text("<|tool_call|>"), s, .innerList, s, .text("<|/tool_call|>")]
        case .lfm2: return [.text("<|tool_call_start|>"), s, .innerList, s, .text("<|tool_call_end|>")]
        case .generic: return [.text("{"), s, .text("\"tool_calls\""), s, .text(":"), s, .innerList, s, .text("}")]
        }
    }

    /// Every form a call may take, each from its first byte: the family's own, and a bare call (or
    /// the generic wrapper) at the turn's start, plain or fenced. Outside the generic format, a JSON
    /// list of calls may stand for the call, and a fence may hold several calls one after another
    /// (Qwen2.5-Coder-0.5B, asked for a call per city, writes three objects in one fence).
    private var forms: [[Grammar.FormPart]] {
        let s = Self.space
        let bare: [Grammar.FormPart] = family == .generic ? ownForm : [.inner]
        let fenced: [[Grammar.FormPart]] = family == .generic ? [bare] : [[.innerSequence], [.innerList]]
        var forms = [bare] + (family == .generic ? [] : [[.innerList]])
        for open in ["```json", "```"] {
            forms += fenced.map { [.text(open), s] + $0 + [s, .text("```")] }
        }
        if !forms.contains(ownForm) { forms.insert(ownForm, at: 0) }
        if family == .llama3 { forms.append([.text("<|python_tag|>"), s, .inner]) }
        return forms
    }

    /// What a grammar for calls to `tools` admits.
    package enum CallGrammar: Sendable {
        /// One call (or the family's list of calls) in any form, from its opener's first byte: the
        /// `.allowed` mode's lazy grammar.
        case one
        /// Any number of further calls after a first one, each in any form, separated by whitespace;
        /// end-of-generation is allowed between calls.
        case more
        /// One call (a list of calls in the list families) in the family's own form: the `.required`
        /// mode, one call per round as before (the session asks again after it).
        case required
    }

    /// The grammar of calls to `tools`.
    package func grammar(for tools: [ChatTool], _ kind: CallGrammar) throws(GrammarError) -> Grammar {
        let call = try Grammar(jsonSchema: callSchema(for: tools), whitespace: .flexible)
        let separator: [Grammar.FormPart] = [Self.space]
        switch kind {
        case .one: return call.wrapped(in: forms)
        case .more: return call.wrapped(in: forms, repetition: .zeroOrMore(separator: separator))
        case .required: return call.wrapped(in: [ownForm])
        }
    }

    // MARK: Rendering (templates that do not render tools or calls themselves)

    /// The tool section of the system message, for templates that do not render `tools`: Hermes's
    /// wording (as Qwen2.5's own template writes it) or, for the generic format, llama.cpp's.
    package func systemBlock(for tools: [ChatTool]) -> String {
        let definitions = tools.map { ChatRenderer.pythonJSON($0.definition) }
        if family == .generic {
            return """
                You can call these tools:
                \(definitions.joined(separator: "\n"))

                To call tools, answer only with JSON of this shape:
                {"tool_calls": [{"name": <tool name>, "arguments": <arguments object>}]}
                Otherwise answer in plain text.
                """
        }
        return """
            # Tools

            You may call one or more functions to assist with the user query.

            You are provided with function signatures within <tools></tools> XML tags:
            <tools>
            \(definitions.joined(separator: "\n"))
            </tools>

            For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
            <tool_call>
            {"name": <function-name>, "arguments": <args-json-object>}
            </tool_call>
            """
    }

    /// The text of an assistant message that makes `calls`, in the family's own form.
    package func render(calls: [ChatToolCall]) -> String {
        func body(_ call: ChatToolCall) -> JSONValue {
            .object([("name", .string(call.name)), (argumentsKey, call.arguments)])
        }
        let list = ChatRenderer.pythonJSON(.array(calls.map(body)))
        switch family {
        case .hermes:
            return calls.map { "<tool_call>\n\(ChatRenderer.pythonJSON(body($0)))\n</tool_call>" }.joined(separator: "\n")
        case .llama3:
            return calls.map { ChatRenderer.pythonJSON(body($0)) }.joined(separator: "\n")
        case .mistral: return "[TOOL_CALLS]" + list
        case .toolCallToken: return "<|tool_call|>" + list
        case .phi4Mini: return "<|tool_call|>" + list + "<|/tool_call|>"
        case .lfm2: return "<|tool_call_start|>" + list + "<|tool_call_end|>"
        case .generic: return ChatRenderer.pythonJSON(.object([("tool_calls", .array(calls.map(body)))]))
        }
    }

    /// One tool output, as the message that reports it holds it (templates that know no tools).
    package func render(output: String) -> String {
        family == .generic ? output : "<tool_response>\n\(output)\n</tool_response>"
    }

    // MARK: Parsing

    /// A call the model wrote that cannot be read, with the offset in the text.
    package struct ParseError: Error, Sendable, CustomStringConvertible {
        package let message: String
        package let offset: Int
        package var description: String { "\(message) at offset \(offset)" }
    }

    /// The calls in `text`, in order. `<tool_call>` blocks (Hermes) each hold exactly one call
    /// object; elsewhere every top-level JSON object is a call (bare, fenced, or in the family's list),
    /// and `{"tool_calls": […]}` holds a list of them. Each call must be
    /// `{"name": "<string>", "arguments": {…}}` (`parameters` is read as `arguments` too).
    package func parseCalls(_ text: String) throws(ParseError) -> [(name: String, arguments: JSONValue)] {
        let bytes = Array(text.utf8)
        let open = Array("<tool_call>".utf8), close = Array("</tool_call>".utf8)
        func matches(_ pattern: [UInt8], at i: Int) -> Bool {
            i + pattern.count <= bytes.count && bytes[i..<(i + pattern.count)].elementsEqual(pattern)
        }
        var calls: [(name: String, arguments: JSONValue)] = []
        var i = 0
        while i < bytes.count {
            if family == .hermes && matches(open, at: i) {
                let bodyStart = i + open.count
                var j = bodyStart
                while j < bytes.count && !matches(close, at: j) { j += 1 }
                guard j < bytes.count else { throw ParseError(message: "the tool call has no </tool_call>", offset: i) }
                calls += try self.calls(in: bytes[bodyStart..<j], offset: bodyStart)
                i = j + close.count
            } else if bytes[i] == UInt8(ascii: "{") {
                let end = try objectEnd(bytes, from: i)
                calls += try self.calls(in: bytes[i..<end], offset: i)
                i = end
            } else {
                i += 1
            }
        }
        return calls
    }

    /// The end of the JSON object that starts at `start` (strings and nesting respected).
    private func objectEnd(_ bytes: [UInt8], from start: Int) throws(ParseError) -> Int {
        var depth = 0
        var inString = false
        var escaped = false
        var i = start
        while i < bytes.count {
            let b = bytes[i]
            if inString {
                if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
            } else if b == UInt8(ascii: "\"") {
                inString = true
            } else if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") {
                depth += 1
            } else if b == UInt8(ascii: "}") || b == UInt8(ascii: "]") {
                depth -= 1
                if depth == 0 { return i + 1 }
            }
            i += 1
        }
        throw ParseError(message: "the tool call is not closed", offset: start)
    }

    /// The calls of one JSON object (whitespace around it allowed): a call, or `{"tool_calls": […]}`.
    private func calls(in body: ArraySlice<UInt8>, offset: Int) throws(ParseError) -> [(name: String, arguments: JSONValue)] {
        let value: JSONValue
        do {
            value = try JSONParser.parse(Array(body))
        } catch {
            throw ParseError(message: "the tool call is not JSON (\(error))", offset: offset)
        }
        guard case .object = value else { throw ParseError(message: "the tool call is not a JSON object", offset: offset) }
        if case .array(let list)? = value["tool_calls"] {
            var out: [(name: String, arguments: JSONValue)] = []
            for item in list { out.append(try call(item, offset: offset)) }
            return out
        }
        return [try call(value, offset: offset)]
    }

    private func call(_ value: JSONValue, offset: Int) throws(ParseError) -> (name: String, arguments: JSONValue) {
        guard case .string(let name)? = value["name"] else {
            throw ParseError(message: "the tool call has no \"name\" string", offset: offset)
        }
        let arguments = value[argumentsKey] ?? value["arguments"] ?? value["parameters"] ?? .object([])
        guard case .object = arguments else {
            throw ParseError(message: "the tool call's arguments are not a JSON object", offset: offset)
        }
        return (name, arguments)
    }
}
