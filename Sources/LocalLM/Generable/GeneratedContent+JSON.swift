import Foundation
import LocalLMJSON

extension GeneratedContent {
    /// Creates content from JSON text, or from a *prefix* of JSON text.
    ///
    /// Streaming parses the model's output after every token, so an unterminated string,
    /// array or object yields what is there so far, marked incomplete (`isComplete == false`).
    /// A key without its value yet is left out. Anything that is not a JSON prefix throws
    /// `GeneratedContentError.invalidJSON` with the byte offset.
    public init(json: String) throws {
        var parser = JSONStreamParser<JSONBuilder>()
        parser.append(json)
        if let failure = parser.failure { throw GeneratedContentError.invalidJSON(failure.message, offset: failure.offset) }
        guard let content = parser.snapshot else {
            throw GeneratedContentError.invalidJSON(
                json.utf8.allSatisfy { [0x20, 0x09, 0x0A, 0x0D].contains($0) } ? "no JSON value" : "no complete JSON value yet",
                offset: json.utf8.count)
        }
        self = content
    }

    /// How the one JSON parser (`JSONStreamParser`, LocalLMJSON) builds content: numbers as `Double`,
    /// incomplete values marked, a repeated key an error (a structure holds each property once), a lone
    /// surrogate an error.
    package enum JSONBuilder: JSONValueBuilding {
        package static var keepsDuplicateKeys: Bool { false }
        package static var replacesLoneSurrogates: Bool { false }
        package static func null(complete: Bool) -> GeneratedContent { GeneratedContent(kind: .null, isComplete: complete) }
        package static func bool(_ value: Bool, complete: Bool) -> GeneratedContent {
            GeneratedContent(kind: .bool(value), isComplete: complete)
        }
        package static func number(_ text: String, complete: Bool) -> GeneratedContent? {
            Double(text).map { GeneratedContent(kind: .number($0), isComplete: complete) }
        }
        package static func string(_ text: String, complete: Bool) -> GeneratedContent {
            GeneratedContent(kind: .string(text), isComplete: complete)
        }
        package static func array(_ elements: [GeneratedContent], complete: Bool) -> GeneratedContent {
            GeneratedContent(kind: .array(elements), isComplete: complete)
        }
        package static func object(_ members: [(key: String, value: GeneratedContent)], complete: Bool) -> GeneratedContent {
            let properties = Dictionary(members, uniquingKeysWith: { first, _ in first })
            return GeneratedContent(kind: .structure(properties: properties, orderedKeys: members.map(\.key)), isComplete: complete)
        }
    }

    /// The content as compact JSON, properties in their generated order.
    public var jsonString: String {
        var out = ""
        Self.writeJSON(self, into: &out)
        return out
    }

    static func writeJSON(_ content: GeneratedContent, into out: inout String) {
        switch content.kind {
        case .null:
            out += "null"
        case .bool(let value):
            out += value ? "true" : "false"
        case .number(let value):
            out += formatJSONNumber(value)
        case .string(let value):
            writeJSONString(value, into: &out)
        case .array(let elements):
            out += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { out += ", " }
                writeJSON(element, into: &out)
            }
            out += "]"
        case .structure(let properties, let orderedKeys):
            out += "{"
            var first = true
            for key in orderedKeys {
                guard let value = properties[key] else { continue }
                if !first { out += ", " }
                first = false
                writeJSONString(key, into: &out)
                out += ": "
                writeJSON(value, into: &out)
            }
            out += "}"
        }
    }

    /// Integral values print without a fraction so that `Int` round-trips as `3`, not `3.0`.
    static func formatJSONNumber(_ value: Double) -> String {
        guard value.isFinite else { return "null" }  // JSON has no NaN or infinity
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
            return String(Int64(value))
        }
        return "\(value)"
    }

    static func writeJSONString(_ value: String, into out: inout String) {
        JSONValue.writeQuoted(value, into: &out)
    }
}
