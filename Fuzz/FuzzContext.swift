// The fixed context the template fuzzers render with: every message role, a tool call and a tool.
import LocalLMJinja

enum FuzzContext {
    static let chat: [String: JinjaValue] = {
        let json = #"""
            {"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"},
                          {"role": "assistant", "content": null, "tool_calls": [{"type": "function",
                           "function": {"name": "f", "arguments": {"a": [1, 2.5, true]}}}]},
                          {"role": "tool", "content": "r"}, {"role": "assistant", "content": "done"}],
             "tools": [{"type": "function", "function": {"name": "f", "description": "d",
                        "parameters": {"type": "object", "properties": {"a": {"type": "array"}}}}}],
             "add_generation_prompt": true, "bos_token": "<s>", "eos_token": "</s>"}
            """#
        guard case .object(let object)? = try? JinjaValue(jsonString: json) else { return [:] }
        return Dictionary(object.pairs, uniquingKeysWith: { first, _ in first })
    }()
}
