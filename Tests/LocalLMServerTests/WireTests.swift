import Foundation
import LocalLMJSON
@testable import LocalLMOpenAIWire
@testable import LocalLMServer
import Testing

/// The wire types against bodies as OpenAI documents them and as the `openai` Python client sends them.
@Suite struct WireTests {
    @Test func decodesARequestAsTheOpenAIClientSendsIt() throws {
        let body = #"""
            {"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"Hi "},{"type":"text","text":"there"}]},
             {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"getWeather","arguments":"{\"city\":\"Oslo\"}"}}]},
             {"role":"tool","tool_call_id":"call_1","content":"20 degrees"}],
             "model":"qwen","stream":true,"stream_options":{"include_usage":true},"temperature":0,"top_p":0.5,"seed":7,"max_tokens":20,"stop":"END",
             "tools":[{"type":"function","function":{"name":"getWeather","description":"Weather","parameters":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}},"required":["z"]}}}],
             "tool_choice":{"type":"function","function":{"name":"getWeather"}},
             "response_format":{"type":"json_schema","json_schema":{"name":"R","schema":{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"string"}}},"strict":true}}}
            """#
        let request = try ChatCompletionRequest.decode(body: Array(body.utf8))
        #expect(request.model == "qwen")
        #expect(request.messages.map(\.role) == ["system", "user", "assistant", "tool"])
        #expect(request.messages[1].content == "Hi there")
        #expect(request.messages[2].content == nil)
        #expect(request.messages[2].toolCalls?.first?.function.arguments == #"{"city":"Oslo"}"#)
        #expect(request.messages[3].toolCallID == "call_1")
        #expect(request.streamOptions?.includeUsage == true)
        #expect(request.temperature == 0 && request.topP == 0.5 && request.seed == 7 && request.maxTokens == 20)
        #expect(request.stop?.values == ["END"])
        #expect(request.toolChoice == .function("getWeather"))
        // Property order is the body's, whatever order the decoder saw the keys in.
        let properties = try #require(request.tools?.first?.function.parameters?["properties"]?.objectMembers)
        #expect(properties.map(\.0) == ["z", "a"])
        let schemaProperties = try #require(request.responseFormat?.jsonSchema?.schema?["properties"]?.objectMembers)
        #expect(schemaProperties.map(\.0) == ["b", "a"])
        for word in ["none", "auto", "required"] {
            let choice = try JSONDecoder().decode(ToolChoice.self, from: Data("\"\(word)\"".utf8))
            #expect(String(decoding: try JSONEncoder().encode(choice), as: UTF8.self) == "\"\(word)\"")
        }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ToolChoice.self, from: Data(#""always""#.utf8)) }
    }

    /// The server's refusals, each before any model work: what is wrong, the field (OpenAI's `param`)
    /// and a code where OpenAI has one. Also the fuzz target's (Fuzz/RequestFuzzer.swift) subject.
    @Test(arguments: [
        (#"{"model":"m","messages":[],"#, "the body is not valid JSON: JSON error at byte 27: unexpected end", nil, "invalid_json"),
        (#"[1]"#, "the body must be a JSON object", nil, nil),
        (#"{"model":"m","messages":[],"logprobs":true}"#, "unsupported parameter 'logprobs'", "logprobs", "unsupported_parameter"),
        (#"{"model":"m"}"#, "the required field 'messages' is missing", "messages", nil),
        (#"{"model":"m","messages":[{"role":"user","content":5}]}"#,
         "messages[0].content: must be a string or an array of content parts", "messages[0].content", nil),
        (#"{"model":"m","messages":[{"role":"user","content":[{"type":"image_url"}]}]}"#,
         "messages[0].content: content parts of type 'image_url' are not supported", "messages[0].content", nil),
        (#"{"model":"m","messages":[],"temperature":null,"seed":"7"}"#, "seed has the wrong type (expected Int)", "seed", nil),
    ] as [(String, String, String?, String?)])
    func refusesABodyItCannotServe(body: String, message: String, param: String?, code: String?) {
        #expect(throws: RequestDecodingError(message: message, param: param, code: code)) {
            try ChatCompletionRequest.decode(body: Array(body.utf8))
        }
    }

    @Test func encodesChunksAndErrorsAsOpenAIDoes() throws {
        let chunk = ChatCompletionChunk(
            id: "c", created: 1, model: "m", choices: [.init(index: 0, delta: .init(content: "x"), finishReason: nil)])
        let chunkJSON = try JSONParser.parse(String(decoding: try JSONEncoder().encode(chunk), as: UTF8.self))
        #expect(chunkJSON["object"] == .string("chat.completion.chunk"))
        #expect(chunkJSON["choices"]?.arrayValue?.first?["finish_reason"] == .null)
        let error = ErrorResponse(message: "no", type: "invalid_request_error")
        let errorJSON = try JSONParser.parse(String(decoding: try JSONEncoder().encode(error), as: UTF8.self))
        #expect(errorJSON["error"]?["param"] == .null && errorJSON["error"]?["code"] == .null)
        // llama.cpp's servers send a numeric code.
        let numeric = try JSONDecoder().decode(ErrorResponse.self, from: Data(#"{"error":{"message":"m","code":400}}"#.utf8))
        #expect(numeric.error.code == "400")
    }

    @Test(arguments: [
        (["END"], ["ab", "cE", "NDx"], "abc", true),
        (["END"], ["abE", "Nx"], "abENx", false),
        (["<|x|>", "##"], ["a#", "b##c"], "a#b", true),
        ([], ["a", "b"], "ab", false),
    ])
    func stopSequencesEndTheOutputAcrossDeltas(stops: [String], deltas: [String], expected: String, stopped: Bool) {
        var scanner = StopScanner(stops)
        var out = ""
        for delta in deltas { out += scanner.feed(delta) }
        out += scanner.flush()
        #expect(out == expected)
        #expect(scanner.stopped == stopped)
    }

    @Test func apiKeysCompareWholly() {
        let key = Array("Bearer secret".utf8)
        #expect(OpenAIServer.constantTimeEqual(key, key))
        #expect(!OpenAIServer.constantTimeEqual(Array("Bearer secreT".utf8), key))
        #expect(!OpenAIServer.constantTimeEqual(Array("Bearer secret2".utf8), key))
        #expect(!OpenAIServer.constantTimeEqual([], key))
        // A length that differs by a multiple of 256 still differs.
        #expect(!OpenAIServer.constantTimeEqual(key + Array(repeating: 0, count: 256), key))
    }
}
