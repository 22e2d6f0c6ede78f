import Foundation
import LocalLMGGUF
import LocalLMTestSupport
import LocalLMJinja
import Testing

/// Templates and special-token texts read from the real test models' GGUF metadata.
struct ChatTemplateModelTests {
    @Test func defaultSourceIsTheGoldenChatML() throws {
        // The goldens render this fixture with jinja2; it must be the fallback Swift uses.
        let fixture = try String(contentsOf: Fixtures.url("templates/locallm-default-chatml.jinja"), encoding: .utf8)
        #expect(ChatTemplate.defaultSource == fixture)
        #expect(ChatTemplate.chatML.source == fixture)
    }

    @Test func smolLM2EmbedsItsTemplate() throws {
        let model = try ModelChatTemplate(gguf: GGUFFile(contentsOf: TestModels.require(TestModels.smolLM2)))
        // Read with gguf-py by scripts/goldens/template_goldens.py, then rendered by jinja2.
        let fixture = try String(contentsOf: Fixtures.url("templates/gguf-SmolLM2-135M-Instruct.jinja"), encoding: .utf8)
        #expect(!model.isFallback)
        #expect(model.template.source == fixture)
        // Token texts of tokenizer.ggml.bos_token_id (1) and eos_token_id (2), as gguf-py reports them.
        #expect(model.bosToken == "<|im_start|>")
        #expect(model.eosToken == "<|im_end|>")
    }

    @Test func gemmaBaseFallsBackToChatML() throws {
        let model = try ModelChatTemplate(gguf: GGUFFile(contentsOf: TestModels.require(TestModels.gemma3)))
        #expect(model.isFallback)
        #expect(model.template.source == ChatTemplate.defaultSource)
        #expect(model.bosToken == "<bos>")
        #expect(model.eosToken == "<eos>")
        let text = try model.render(context: [
            "messages": .array([.object(JinjaObject([("role", "user"), ("content", "Hi")].map { ($0.0, JinjaValue($0.1)) }))]),
            "add_generation_prompt": .bool(true),
        ])
        #expect(text == "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n")
    }

    @Test func contextOverridesModelSpecialTokens() throws {
        let template = try ChatTemplate(source: "{{ bos_token }}|{{ eos_token }}")
        let model = ModelChatTemplate(template: template, isFallback: false, bosToken: "<s>", eosToken: "</s>")
        #expect(try model.render(context: [:]) == "<s>|</s>")
        #expect(try model.render(context: ["bos_token": "B", "eos_token": .string("E")]) == "B|E")
    }

    @Test func typedRenderSetsTheHuggingFaceVariables() throws {
        let template = try ChatTemplate(source: "{{ bos_token }}{% for m in messages %}[{{ m.role }}:{{ m.content }}]{% endfor %}{{ tools | length }}{{ add_generation_prompt }}{{ eos_token }}{{ extra_flag }}")
        let message = JinjaValue.object(JinjaObject([("role", .string("user")), ("content", .string("q"))]))
        let text = try template.render(messages: [message], tools: [.object(JinjaObject())], addGenerationPrompt: true,
                                       bosToken: "<s>", eosToken: "</s>", extra: ["extra_flag": .bool(false)])
        #expect(text == "<s>[user:q]1True</s>False")
    }
}

/// The Swift-side value API the API layer builds contexts with.
struct JinjaValueAPITests {
    @Test func literalsKeepOrderAndRoundTripThroughJSON() throws {
        let value: JinjaValue = ["role": "assistant", "content": nil, "n": 3, "x": 0.5, "ok": true, "list": [1, "two"]]
        let json = try value.jsonString()
        #expect(json == #"{"role": "assistant", "content": null, "n": 3, "x": 0.5, "ok": true, "list": [1, "two"]}"#)
        #expect(try JinjaValue(jsonString: json) == value)
        #expect(try value.jsonString(indent: 2).hasPrefix("{\n  \"role\": \"assistant\",\n"))
        #expect(JinjaValue.int(1) != JinjaValue.double(1))
    }

    @Test func docsExampleRenders() throws {
        // The first example of Docs/chat-templates.md.
        let template = try ChatTemplate(source: ChatTemplate.defaultSource)
        let prompt = try template.render(context: [
            "messages": [["role": "user", "content": "Hello!"]],
            "add_generation_prompt": true,
            "bos_token": "<s>", "eos_token": "</s>",
        ])
        #expect(prompt == "<|im_start|>user\nHello!<|im_end|>\n<|im_start|>assistant\n")
    }
}
