import Foundation
import LocalLMJSON

// How the server reads a `POST /v1/chat/completions` body: untrusted bytes in, a typed request or a
// typed refusal out. Kept apart from the server (which only maps the refusal to HTTP 400) so that the
// decoder builds without the HTTP stack, for its fuzz target (Fuzz/RequestFuzzer.swift).

/// A request body that cannot be served, with the field it concerns (OpenAI's `param`) and a code.
public struct RequestDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var param: String?
    public var code: String?

    public init(message: String, param: String? = nil, code: String? = nil) {
        self.message = message
        self.param = param
        self.code = code
    }

    public var description: String { message }
}

extension ChatCompletionRequest {
    /// Decodes a request body: JSON (the project's parser, with byte offsets in its errors), an object,
    /// only fields this type reads (anything else is refused by name rather than ignored), the typed
    /// fields, and the schemas in the order the body writes them.
    public static func decode(body bytes: [UInt8]) throws(RequestDecodingError) -> ChatCompletionRequest {
        let tree: JSONValue
        do {
            tree = try JSONParser.parse(bytes)
        } catch {
            throw RequestDecodingError(message: "the body is not valid JSON: \(error)", code: "invalid_json")
        }
        guard let members = tree.objectMembers else { throw RequestDecodingError(message: "the body must be a JSON object") }
        for (key, _) in members where !knownFields.contains(key) {
            throw RequestDecodingError(message: "unsupported parameter '\(key)'", param: key, code: "unsupported_parameter")
        }
        var request: ChatCompletionRequest
        do {
            request = try JSONDecoder().decode(ChatCompletionRequest.self, from: Data(bytes))
        } catch let error as DecodingError {
            let (message, param) = describe(error)
            throw RequestDecodingError(message: message, param: param)
        } catch {
            throw RequestDecodingError(message: "the body cannot be read: \(error)")
        }
        request.restoreSchemaOrder(from: tree)
        return request
    }

    /// A decoding error as a sentence and the dotted path of the field (`messages[2].content`).
    static func describe(_ error: DecodingError) -> (String, String?) {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingPrefix(".").description
        }
        switch error {
        case .typeMismatch(let type, let context):
            return ("\(path(context.codingPath)) has the wrong type (expected \(type))", path(context.codingPath))
        case .valueNotFound(_, let context):
            return ("\(path(context.codingPath)) must not be null", path(context.codingPath))
        case .keyNotFound(let key, let context):
            let full = path(context.codingPath + [key])
            return ("the required field '\(full)' is missing", full)
        case .dataCorrupted(let context):
            return ("\(path(context.codingPath)): \(context.debugDescription)", path(context.codingPath))
        @unknown default:
            return ("\(error)", nil)
        }
    }
}
