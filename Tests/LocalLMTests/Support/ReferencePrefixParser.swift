import Foundation

@testable import LocalLM

/// The prefix parser `GeneratedContent(json:)` used before the one JSON parser (`JSONStreamParser`)
/// replaced it, kept as an independent reference: it reads a whole prefix recursively, where the
/// stream parser is a byte-at-a-time state machine, so agreeing on every prefix of many documents
/// tests both (`StreamingJSONParserTests`).
///
/// A JSON parser that accepts any prefix of a JSON document.
///
/// Works on UTF-8 bytes; nesting is bounded so that hostile input cannot exhaust the stack.
struct ReferencePrefixParser {
    private let bytes: [UInt8]
    private var position = 0
    private static let maximumDepth = 256

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var atEnd: Bool { position >= bytes.count }

    private func fail(_ message: String) -> GeneratedContentError {
        .invalidJSON(message, offset: position)
    }

    mutating func parseDocument() throws -> GeneratedContent {
        skipWhitespace()
        guard !atEnd else { throw fail("no JSON value") }
        guard let value = try parseValue(depth: 0) else { throw fail("no complete JSON value yet") }
        skipWhitespace()
        guard atEnd else { throw fail("unexpected text after the JSON value") }
        return value
    }

    private mutating func skipWhitespace() {
        while !atEnd, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    /// Parses one value; `nil` means the input ended before anything usable (a lone `-`).
    private mutating func parseValue(depth: Int) throws -> GeneratedContent? {
        guard depth < Self.maximumDepth else { throw fail("nesting deeper than \(Self.maximumDepth)") }
        guard !atEnd else { return nil }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""):
            let (string, complete) = try parseString()
            return GeneratedContent(kind: .string(string), isComplete: complete)
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character '\(Character(UnicodeScalar(bytes[position])))'")
        }
    }

    private mutating func parseLiteral(_ word: String, _ kind: GeneratedContent.Kind) throws -> GeneratedContent {
        let expected = Array(word.utf8)
        var matched = 0
        while matched < expected.count, !atEnd {
            guard bytes[position] == expected[matched] else { throw fail("expected '\(word)'") }
            matched += 1
            position += 1
        }
        // A prefix such as `tr` can only ever become `true`.
        return GeneratedContent(kind: kind, isComplete: matched == expected.count)
    }

    private mutating func parseNumber() throws -> GeneratedContent? {
        let start = position
        func digits(_ p: inout Int, in bytes: [UInt8]) -> Int {
            let s = p
            while p < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[p]) { p += 1 }
            return p - s
        }
        var p = position
        if p < bytes.count, bytes[p] == UInt8(ascii: "-") { p += 1 }
        let intDigits = digits(&p, in: bytes)
        var usableEnd = intDigits > 0 ? p : start
        if intDigits > 1, bytes[start + (bytes[start] == UInt8(ascii: "-") ? 1 : 0)] == UInt8(ascii: "0") {
            position = start
            throw fail("leading zero in number")
        }
        if intDigits > 0, p < bytes.count, bytes[p] == UInt8(ascii: ".") {
            p += 1
            if digits(&p, in: bytes) > 0 { usableEnd = p } else if p < bytes.count {
                position = p
                throw fail("expected digits after '.'")
            }
        }
        if usableEnd == p, intDigits > 0, p < bytes.count, bytes[p] == UInt8(ascii: "e") || bytes[p] == UInt8(ascii: "E") {
            p += 1
            if p < bytes.count, bytes[p] == UInt8(ascii: "+") || bytes[p] == UInt8(ascii: "-") { p += 1 }
            if digits(&p, in: bytes) > 0 { usableEnd = p } else if p < bytes.count {
                position = p
                throw fail("expected digits in exponent")
            }
        }
        if intDigits == 0 {
            guard p >= bytes.count else {
                position = p
                throw fail("expected a digit")
            }
            position = p
            return nil  // a lone '-' at the end: nothing yet
        }
        position = p
        // `12` at the very end may still grow into `123`; a delimiter after it settles it.
        let complete = p < bytes.count && usableEnd == p
        guard let text = String(bytes: bytes[start..<usableEnd], encoding: .utf8), let value = Double(text) else {
            position = start
            throw fail("malformed number")
        }
        return GeneratedContent(kind: .number(value), isComplete: complete)
    }

    /// Returns the string and whether its closing quote was seen.
    private mutating func parseString() throws -> (String, Bool) {
        position += 1  // opening quote
        var scalars = String.UnicodeScalarView()
        var runStart = position
        func flushRun(_ end: Int) throws {
            guard runStart < end else { return }
            guard let text = String(validating: bytes[runStart..<end], as: UTF8.self) else {
                // A multi-byte character cut by the end of a stream chunk is not an error.
                if end == bytes.count, let text = Self.validUTF8Prefix(bytes[runStart..<end]) {
                    scalars.append(contentsOf: text.unicodeScalars)
                    return
                }
                throw fail("invalid UTF-8 in string")
            }
            scalars.append(contentsOf: text.unicodeScalars)
        }
        while !atEnd {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                try flushRun(position)
                position += 1
                return (String(scalars), true)
            }
            if byte < 0x20 { throw fail("control character in string") }
            if byte == UInt8(ascii: "\\") {
                try flushRun(position)
                guard position + 1 < bytes.count else {
                    position = bytes.count
                    return (String(scalars), false)  // a backslash cut off at the end
                }
                let escape = bytes[position + 1]
                position += 2
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    guard let unit = try parseHex4() else { return (String(scalars), false) }
                    if (0xD800..<0xDC00).contains(unit) {
                        // A high surrogate needs its low half: `\uD83D\uDE00`.
                        if position + 2 > bytes.count { return (String(scalars), false) }
                        guard bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                            throw fail("unpaired surrogate in string")
                        }
                        position += 2
                        guard let low = try parseHex4() else { return (String(scalars), false) }
                        guard (0xDC00..<0xE000).contains(low),
                              let scalar = UnicodeScalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                        else { throw fail("invalid surrogate pair in string") }
                        scalars.append(scalar)
                    } else {
                        guard let scalar = UnicodeScalar(unit) else { throw fail("unpaired surrogate in string") }
                        scalars.append(scalar)
                    }
                default:
                    position -= 1
                    throw fail("invalid escape in string")
                }
                runStart = position
                continue
            }
            position += 1
        }
        try flushRun(position)
        return (String(scalars), false)
    }

    /// Four hex digits after `\u`; `nil` when the input ends first.
    private mutating func parseHex4() throws -> UInt32? {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard !atEnd else { return nil }
            let byte = bytes[position]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail("invalid \\u escape")
            }
            value = value * 16 + digit
            position += 1
        }
        return value
    }

    private static func validUTF8Prefix(_ slice: ArraySlice<UInt8>) -> String? {
        // At most three trailing bytes can belong to an unfinished character.
        for cut in 1...min(3, slice.count) {
            if let text = String(validating: slice.dropLast(cut), as: UTF8.self) { return text }
        }
        return nil
    }

    private mutating func parseArray(depth: Int) throws -> GeneratedContent {
        position += 1
        var elements: [GeneratedContent] = []
        skipWhitespace()
        if !atEnd, bytes[position] == UInt8(ascii: "]") {
            position += 1
            return GeneratedContent(kind: .array([]))
        }
        while true {
            skipWhitespace()
            guard let element = try parseValue(depth: depth + 1) else { break }
            elements.append(element)
            skipWhitespace()
            guard !atEnd else { break }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if bytes[position] == UInt8(ascii: "]") {
                position += 1
                return GeneratedContent(kind: .array(elements))
            }
            throw fail("expected ',' or ']' in array")
        }
        return GeneratedContent(kind: .array(elements), isComplete: false)
    }

    private mutating func parseObject(depth: Int) throws -> GeneratedContent {
        position += 1
        var properties: [String: GeneratedContent] = [:]
        var order: [String] = []
        func partial() -> GeneratedContent {
            GeneratedContent(kind: .structure(properties: properties, orderedKeys: order), isComplete: false)
        }
        skipWhitespace()
        if !atEnd, bytes[position] == UInt8(ascii: "}") {
            position += 1
            return GeneratedContent(kind: .structure(properties: [:], orderedKeys: []))
        }
        while true {
            skipWhitespace()
            guard !atEnd else { return partial() }
            guard bytes[position] == UInt8(ascii: "\"") else { throw fail("expected a property name") }
            let (key, keyComplete) = try parseString()
            guard keyComplete else { return partial() }  // half a key is no key
            skipWhitespace()
            guard !atEnd else { return partial() }
            guard bytes[position] == UInt8(ascii: ":") else { throw fail("expected ':' after property name") }
            position += 1
            skipWhitespace()
            guard let value = try parseValue(depth: depth + 1) else { return partial() }
            guard properties[key] == nil else { throw fail("duplicate property '\(key)'") }
            properties[key] = value
            order.append(key)
            skipWhitespace()
            guard !atEnd else { return partial() }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if bytes[position] == UInt8(ascii: "}") {
                position += 1
                return GeneratedContent(kind: .structure(properties: properties, orderedKeys: order))
            }
            throw fail("expected ',' or '}' in object")
        }
    }
}
