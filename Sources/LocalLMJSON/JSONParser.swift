/// Whole JSON documents as `JSONValue`: strict RFC 8259 (schemas, templates' JSON, tool calls).
/// It is ``JSONStreamParser`` fed the whole text; errors carry the byte offset.
package enum JSONParser {
    package struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        package let message: String
        package let offset: Int
        package var description: String { "JSON error at byte \(offset): \(message)" }

        package init(message: String, offset: Int) {
            self.message = message
            self.offset = offset
        }
    }

    package static var maxDepth: Int { JSONStreamParser<JSONValue.Builder>.maximumDepth }

    package static func parse(_ text: String) throws(Failure) -> JSONValue {
        var parser = JSONStreamParser<JSONValue.Builder>()
        parser.append(text)
        return try parser.finish()
    }

    package static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        var parser = JSONStreamParser<JSONValue.Builder>()
        parser.append(bytes: bytes)
        return try parser.finish()
    }

    /// The value of one hex digit (JSON's `\u` escapes, GBNF's `\x`/`\u`), or nil.
    package static func hexValue(_ c: UInt8) -> UInt32? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(c - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(c - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(c - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}

extension JSONValue {
    /// How the parser builds a `JSONValue`: number text kept, duplicate keys kept as written, lone
    /// surrogates read as U+FFFD (as Python's and most readers accept them). A whole document has no
    /// incomplete values, so `complete` is not stored.
    package enum Builder: JSONValueBuilding {
        package static var keepsDuplicateKeys: Bool { true }
        package static var replacesLoneSurrogates: Bool { true }
        package static func null(complete: Bool) -> JSONValue { .null }
        package static func bool(_ value: Bool, complete: Bool) -> JSONValue { .bool(value) }
        package static func number(_ text: String, complete: Bool) -> JSONValue? { .number(text) }
        package static func string(_ text: String, complete: Bool) -> JSONValue { .string(text) }
        package static func array(_ elements: [JSONValue], complete: Bool) -> JSONValue { .array(elements) }
        package static func object(_ members: [(key: String, value: JSONValue)], complete: Bool) -> JSONValue {
            .object(members.map { ($0.key, $0.value) })
        }
    }
}
