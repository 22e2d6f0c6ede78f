import LocalLMJSON

/// Parses a JSON document as it streams in, for `PartiallyGenerated` snapshots during streaming.
///
/// `GeneratedContent(json:)` reads a whole prefix; streaming with it re-reads the whole response after
/// every token, which is quadratic in the response's length. This parser keeps its place instead:
/// ``append(_:)`` scans only the new bytes (``bytesScanned`` counts them), and ``content`` assembles
/// the snapshot from the open containers (work in the nesting depth, not the text). For every prefix
/// of a document, ``content`` equals what `GeneratedContent(json:)` gives for it, and `.null` where
/// that throws (the session's `content(of:)` semantics); `StreamingJSONParserTests` checks both.
package struct StreamingJSONParser: Sendable {
    private enum ArrayState { case start, value, afterValue }
    private enum ObjectState { case start, key, inKey, colon(String), value(String), afterValue }

    private enum Frame {
        case array([GeneratedContent], ArrayState)
        case object([String: GeneratedContent], [String], ObjectState)
    }

    /// A string being read (a value's or a key's).
    private struct StringState {
        enum Escape { case none, backslash, unicode(UInt32, Int), lowBackslash(UInt32), lowU(UInt32), low(UInt32, UInt32, Int) }
        var text = ""
        /// Bytes of plain text not yet appended to `text` (flushed at every `append` boundary, which
        /// falls between scalars because deltas are Strings).
        var run: [UInt8] = []
        var escape = Escape.none

        mutating func flush() {
            guard !run.isEmpty else { return }
            text += String(decoding: run, as: UTF8.self)
            run.removeAll(keepingCapacity: true)
        }
    }

    private enum Leaf {
        case string(StringState)
        case number([UInt8])
        case literal([UInt8], matched: Int, GeneratedContent.Kind)
    }

    private static let maximumDepth = 256
    private var frames: [Frame] = []
    private var leaf: Leaf?
    /// The key being read in the innermost object (`ObjectState.inKey`).
    private var key = StringState()
    private var topValue: GeneratedContent?
    private var failed = false
    /// Bytes examined so far, re-examinations included: the parser's work.
    package private(set) var bytesScanned = 0

    package init() {}

    /// Reads the next piece of the document.
    package mutating func append(_ text: String) {
        guard !failed else { return }
        for byte in text.utf8 {
            consume(byte)
            if failed { return }
        }
        if case .string(var state)? = leaf {
            state.flush()
            leaf = .string(state)
        }
        if case .object(_, _, .inKey)? = frames.last { key.flush() }
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
    private static func isNumberByte(_ b: UInt8) -> Bool {
        (0x30...0x39).contains(b) || b == UInt8(ascii: "-") || b == UInt8(ascii: "+") || b == UInt8(ascii: ".")
            || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
    }

    private mutating func consume(_ byte: UInt8) {
        bytesScanned += 1
        switch leaf {
        case .string(var state)?:
            switch Self.step(&state, byte) {
            case .more: leaf = .string(state)
            case .closed:
                state.flush()
                leaf = nil
                deliver(GeneratedContent(kind: .string(state.text)))
            case .failed: failed = true
            }
            return
        case .number(var bytes)?:
            if Self.isNumberByte(byte) {
                bytes.append(byte)
                leaf = .number(bytes)
                return
            }
            leaf = nil
            guard let (value, consumed) = try? Self.scanNumber(bytes, more: true), let value else { failed = true; return }
            deliver(GeneratedContent(kind: .number(value)))
            // What the number's grammar did not take goes to the container (which refuses it).
            for extra in bytes[consumed...] {
                consume(extra)
                if failed { return }
            }
            consume(byte)
            return
        case .literal(let word, let matched, let kind)?:
            guard byte == word[matched] else { failed = true; return }
            if matched + 1 == word.count {
                leaf = nil
                deliver(GeneratedContent(kind: kind))
            } else {
                leaf = .literal(word, matched: matched + 1, kind)
            }
            return
        case nil:
            break
        }
        guard let frame = frames.last else {
            if topValue != nil {
                if !Self.isSpace(byte) { failed = true }  // text after the value
            } else if !Self.isSpace(byte) {
                beginValue(byte)
            }
            return
        }
        if Self.isSpace(byte), !isInKey { return }
        switch frame {
        case .array(let elements, let state):
            switch state {
            case .start where byte == UInt8(ascii: "]"), .afterValue where byte == UInt8(ascii: "]"):
                frames.removeLast()
                deliver(GeneratedContent(kind: .array(elements)))
            case .afterValue where byte == UInt8(ascii: ","):
                frames[frames.count - 1] = .array(elements, .value)
            case .afterValue:
                failed = true
            case .start, .value:
                beginValue(byte)
            }
        case .object(let properties, let order, let state):
            switch state {
            case .start where byte == UInt8(ascii: "}"), .afterValue where byte == UInt8(ascii: "}"):
                frames.removeLast()
                deliver(GeneratedContent(kind: .structure(properties: properties, orderedKeys: order)))
            case .start where byte == UInt8(ascii: "\""), .key where byte == UInt8(ascii: "\""):
                key = StringState()
                frames[frames.count - 1] = .object(properties, order, .inKey)
            case .inKey:
                switch Self.step(&key, byte) {
                case .more: break
                case .closed:
                    key.flush()
                    frames[frames.count - 1] = .object(properties, order, .colon(key.text))
                case .failed: failed = true
                }
            case .colon(let name) where byte == UInt8(ascii: ":"):
                frames[frames.count - 1] = .object(properties, order, .value(name))
            case .value:
                beginValue(byte)
            case .afterValue where byte == UInt8(ascii: ","):
                frames[frames.count - 1] = .object(properties, order, .key)
            case .start, .key, .colon, .afterValue:
                failed = true
            }
        }
    }

    private var isInKey: Bool {
        if case .object(_, _, .inKey)? = frames.last { return true }
        return false
    }

    private mutating func beginValue(_ byte: UInt8) {
        guard frames.count < Self.maximumDepth else { failed = true; return }
        switch byte {
        case UInt8(ascii: "["): frames.append(.array([], .start))
        case UInt8(ascii: "{"): frames.append(.object([:], [], .start))
        case UInt8(ascii: "\""): leaf = .string(StringState())
        case UInt8(ascii: "t"): leaf = .literal(Array("true".utf8), matched: 1, .bool(true))
        case UInt8(ascii: "f"): leaf = .literal(Array("false".utf8), matched: 1, .bool(false))
        case UInt8(ascii: "n"): leaf = .literal(Array("null".utf8), matched: 1, .null)
        case UInt8(ascii: "-"), 0x30...0x39: leaf = .number([byte])
        default: failed = true
        }
    }

    /// Hands a finished value to the innermost container.
    private mutating func deliver(_ value: GeneratedContent) {
        guard !frames.isEmpty else {
            topValue = value
            return
        }
        // Taken out of the stack so the container's storage is unique while it grows.
        switch frames.removeLast() {
        case .array(var elements, _):
            elements.append(value)
            frames.append(.array(elements, .afterValue))
        case .object(var properties, var order, .value(let name)):
            guard properties[name] == nil else { failed = true; return }
            properties[name] = value
            order.append(name)
            frames.append(.object(properties, order, .afterValue))
        case .object:
            failed = true
        }
    }

    private enum StringStep { case more, closed, failed }

    /// One byte of a string's body.
    private static func step(_ s: inout StringState, _ byte: UInt8) -> StringStep {
        func append(_ scalar: UnicodeScalar) {
            s.flush()
            s.text.unicodeScalars.append(scalar)
        }
        switch s.escape {
        case .none:
            if byte == UInt8(ascii: "\"") { return .closed }
            if byte < 0x20 { return .failed }
            if byte == UInt8(ascii: "\\") { s.escape = .backslash; return .more }
            s.run.append(byte)
            return .more
        case .backslash:
            s.escape = .none
            switch byte {
            case UInt8(ascii: "\""): append("\"")
            case UInt8(ascii: "\\"): append("\\")
            case UInt8(ascii: "/"): append("/")
            case UInt8(ascii: "b"): append("\u{08}")
            case UInt8(ascii: "f"): append("\u{0C}")
            case UInt8(ascii: "n"): append("\n")
            case UInt8(ascii: "r"): append("\r")
            case UInt8(ascii: "t"): append("\t")
            case UInt8(ascii: "u"): s.escape = .unicode(0, 0)
            default: return .failed
            }
            return .more
        case .unicode(let value, let digits):
            guard let d = JSONParser.hexValue(byte) else { return .failed }
            let unit = value * 16 + d
            guard digits == 3 else { s.escape = .unicode(unit, digits + 1); return .more }
            if (0xD800..<0xDC00).contains(unit) { s.escape = .lowBackslash(unit); return .more }
            guard let scalar = UnicodeScalar(unit) else { return .failed }
            s.escape = .none
            append(scalar)
            return .more
        case .lowBackslash(let high):
            guard byte == UInt8(ascii: "\\") else { return .failed }
            s.escape = .lowU(high)
            return .more
        case .lowU(let high):
            guard byte == UInt8(ascii: "u") else { return .failed }
            s.escape = .low(high, 0, 0)
            return .more
        case .low(let high, let value, let digits):
            guard let d = JSONParser.hexValue(byte) else { return .failed }
            let low = value * 16 + d
            guard digits == 3 else { s.escape = .low(high, low, digits + 1); return .more }
            guard (0xDC00..<0xE000).contains(low), let scalar = UnicodeScalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            else { return .failed }
            s.escape = .none
            append(scalar)
            return .more
        }
    }

    private struct NumberError: Error {}

    /// The number at the start of `bytes` as `GeneratedContent(json:)` reads it: its value (nil for a
    /// lone `-` at the end) and the bytes its grammar takes. `more`: another byte follows `bytes`.
    private static func scanNumber(_ bytes: [UInt8], more: Bool) throws(NumberError) -> (Double?, Int) {
        let count = bytes.count + (more ? 1 : 0)  // the byte after is never a digit, '.', 'e' or a sign
        func at(_ p: Int) -> UInt8 { p < bytes.count ? bytes[p] : 0x20 }
        func digits(_ p: inout Int) -> Int {
            let s = p
            while p < bytes.count, (0x30...0x39).contains(bytes[p]) { p += 1 }
            return p - s
        }
        var p = 0
        if at(0) == UInt8(ascii: "-"), !bytes.isEmpty { p += 1 }
        let intDigits = digits(&p)
        var usableEnd = intDigits > 0 ? p : 0
        if intDigits > 1, bytes[bytes[0] == UInt8(ascii: "-") ? 1 : 0] == 0x30 { throw NumberError() }
        if intDigits > 0, p < count, at(p) == UInt8(ascii: ".") {
            p += 1
            if digits(&p) > 0 { usableEnd = p } else if p < count { throw NumberError() }
        }
        if usableEnd == p, intDigits > 0, p < count, at(p) == UInt8(ascii: "e") || at(p) == UInt8(ascii: "E") {
            p += 1
            if p < count, at(p) == UInt8(ascii: "+") || at(p) == UInt8(ascii: "-") { p += 1 }
            if digits(&p) > 0 { usableEnd = p } else if p < count { throw NumberError() }
        }
        if intDigits == 0 {
            guard p >= count else { throw NumberError() }
            return (nil, p)
        }
        guard let value = Double(String(decoding: bytes[..<usableEnd], as: UTF8.self)) else { throw NumberError() }
        return (value, min(p, bytes.count))
    }

    /// What `GeneratedContent(json:)` gives for everything appended so far, or `.null` where it throws.
    package var content: GeneratedContent {
        let null = GeneratedContent(kind: .null)
        guard !failed else { return null }
        var child: GeneratedContent?
        switch leaf {
        case .string(var state)?:
            state.flush()
            child = GeneratedContent(kind: .string(state.text), isComplete: false)
        case .number(let bytes)?:
            // Bytes the number's grammar leaves (`1.5.`) can follow no value: the prefix is invalid.
            guard let (value, consumed) = try? Self.scanNumber(bytes, more: false), consumed == bytes.count else { return null }
            child = value.map { GeneratedContent(kind: .number($0), isComplete: false) }
        case .literal(_, _, let kind)?:
            child = GeneratedContent(kind: kind, isComplete: false)
        case nil:
            break
        }
        for frame in frames.reversed() {
            switch frame {
            case .array(var elements, _):
                if let child { elements.append(child) }
                child = GeneratedContent(kind: .array(elements), isComplete: false)
            case .object(var properties, var order, let state):
                if case .value(let name) = state, let value = child {
                    guard properties[name] == nil else { return null }
                    properties[name] = value
                    order.append(name)
                }
                child = GeneratedContent(kind: .structure(properties: properties, orderedKeys: order), isComplete: false)
            }
        }
        return child ?? topValue ?? null
    }
}
