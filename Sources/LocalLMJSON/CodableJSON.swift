/// Carries a `JSONValue` (a schema, tool parameters, generated content) through `Encoder`/`Decoder`:
/// the one Codable bridge of every layer (the OpenAI wire types, the transcript's Codable form).
///
/// Decoders do not promise object member order; callers put the order back where it matters (the
/// wire's `restoreSchemaOrder(from:)`, the transcript's schema order). Numbers keep their text when
/// they are integers.
package struct CodableJSON: Codable, Sendable {
    package let value: JSONValue

    package init(_ value: JSONValue) {
        self.value = value
    }

    private struct Key: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    package init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            var members: [(String, JSONValue)] = []
            for key in keyed.allKeys {
                members.append((key.stringValue, try keyed.decode(CodableJSON.self, forKey: key).value))
            }
            value = .object(members)
        } else if var unkeyed = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !unkeyed.isAtEnd { elements.append(try unkeyed.decode(CodableJSON.self).value) }
            value = .array(elements)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                value = .null
            } else if let flag = try? single.decode(Bool.self) {
                value = .bool(flag)
            } else if let integer = try? single.decode(Int.self) {
                value = .number(String(integer))
            } else if let number = try? single.decode(Double.self) {
                value = .number(String(number))
            } else {
                value = .string(try single.decode(String.self))
            }
        }
    }

    package func encode(to encoder: any Encoder) throws {
        switch value {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .number(let text):
            var container = encoder.singleValueContainer()
            if let integer = Int(text) {
                try container.encode(integer)
            } else if let number = Double(text) {
                try container.encode(number)
            } else {
                throw EncodingError.invalidValue(text, .init(codingPath: encoder.codingPath, debugDescription: "not a JSON number"))
            }
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(CodableJSON(element)) }
        case .object(let members):
            var container = encoder.container(keyedBy: Key.self)
            for (key, member) in members { try container.encode(CodableJSON(member), forKey: Key(stringValue: key)) }
        }
    }
}
