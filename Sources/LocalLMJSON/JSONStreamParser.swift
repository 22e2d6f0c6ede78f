/// What ``JSONStreamParser`` builds its values with: `JSONValue` for documents read whole (schemas,
/// templates, tool calls), `GeneratedContent` for the snapshots a streaming response shows.
///
/// `complete` is false for a value the input so far has cut off (a string without its closing quote,
/// `12` that may still become `123`, an open array), which only a partial snapshot contains.
package protocol JSONValueBuilding {
    associatedtype Value
    /// Whether an object may repeat a key (kept as written), or a repeat is an error.
    static var keepsDuplicateKeys: Bool { get }
    /// Whether a lone UTF-16 surrogate in a `\u` escape reads as U+FFFD (as most readers do), or is an error.
    static var replacesLoneSurrogates: Bool { get }
    static func null(complete: Bool) -> Value
    static func bool(_ value: Bool, complete: Bool) -> Value
    /// `text` is JSON number syntax (for an incomplete number, its longest usable prefix). `nil`: the
    /// builder cannot hold it, which makes the document an error.
    static func number(_ text: String, complete: Bool) -> Value?
    static func string(_ text: String, complete: Bool) -> Value
    static func array(_ elements: [Value], complete: Bool) -> Value
    static func object(_ members: [(key: String, value: Value)], complete: Bool) -> Value
}

/// The one JSON parser of every layer: it reads a document in pieces as they arrive and keeps its
/// place, so each piece costs work in its own length (``bytesScanned`` counts it).
///
/// - ``append(_:)-(String)`` feeds the next piece; a piece may end anywhere, even inside a UTF-8
///   character, an escape or a number.
/// - ``snapshot`` is the value of everything read so far, incomplete values marked (what a streaming
///   response shows); `nil` when nothing is there yet or the text is not a JSON prefix.
/// - ``finish()`` ends the document and returns the complete value, or the error with its byte offset
///   (what a whole-document reader wants). `JSONParser.parse` is this parser with `JSONValue`.
///
/// Nesting is bounded (``maximumDepth``) so hostile input cannot exhaust memory or the stack; nothing
/// is allocated in proportion to anything but the input itself.
package struct JSONStreamParser<Builder: JSONValueBuilding> {
    package typealias Value = Builder.Value
    package static var maximumDepth: Int { 512 }

    private enum ArrayState { case start, value, afterValue }
    private enum ObjectState { case start, key, inKey, colon(String), value(String), afterValue }
    private enum Frame {
        case array([Value], ArrayState)
        case object([(key: String, value: Value)], keys: Set<String>, ObjectState)
    }

    /// A string being read (a value's or a key's).
    private struct StringState {
        enum Escape { case none, backslash, unicode(UInt32, Int), lowBackslash(UInt32), lowU(UInt32), low(UInt32, UInt32, Int) }
        var text = ""
        /// Raw bytes not yet decoded into `text`; decoded at escapes, at the closing quote and at the end
        /// of each appended piece (up to three bytes of a character cut by that end wait here).
        var pending: [UInt8] = []
        var escape = Escape.none
        /// Continuation bytes the character being read still needs, and the range the next one must
        /// be in, so that invalid UTF-8 is an error at its own byte, wherever the pieces are cut.
        var continuations = 0
        var nextLow: UInt8 = 0x80
        var nextHigh: UInt8 = 0xBF
    }

    private enum Literal { case null, bool(Bool) }
    private enum Leaf {
        case string(StringState)
        case number([UInt8], start: Int)
        case literal([UInt8], matched: Int, Literal)
    }

    private var frames: [Frame] = []
    private var leaf: Leaf?
    /// The key being read in the innermost object (`ObjectState.inKey`).
    private var key = StringState()
    private var topValue: Value?
    /// Input bytes read so far: the offset of the next one.
    private var position = 0
    /// The first error; once set, the parser reads nothing more.
    package private(set) var failure: JSONParser.Failure?
    /// Bytes examined so far, re-examinations included: the parser's work.
    package private(set) var bytesScanned = 0

    package init() {}

    /// Reads the next piece of the document.
    package mutating func append(_ text: String) {
        append(bytes: text.utf8)
    }

    /// Reads the next piece of the document, as UTF-8 bytes.
    package mutating func append(bytes: some Sequence<UInt8>) {
        guard failure == nil else { return }
        for byte in bytes {
            consume(byte, at: position)
            position += 1
            if failure != nil { return }
        }
        // Decode what the open string holds so far, so that snapshots and the next piece cost work in
        // the new bytes only.
        if case .string(var state)? = leaf {
            guard Self.decodePending(&state, final: false) else { return fail("invalid UTF-8 in string", at: position) }
            leaf = .string(state)
        }
        if case .object(_, _, .inKey)? = frames.last {
            guard Self.decodePending(&key, final: false) else { return fail("invalid UTF-8 in string", at: position) }
        }
    }

    /// Ends the document: its complete value, or why there is none.
    package mutating func finish() throws(JSONParser.Failure) -> Value {
        if failure == nil, case .number(let bytes, let start)? = leaf {
            leaf = nil
            finishNumber(bytes, start: start, more: false)
        }
        if let failure { throw failure }
        guard frames.isEmpty, leaf == nil, let topValue else {
            throw JSONParser.Failure(message: position == 0 ? "no JSON value" : "unexpected end", offset: position)
        }
        return topValue
    }

    private mutating func fail(_ message: String, at offset: Int) {
        if failure == nil { failure = JSONParser.Failure(message: message, offset: offset) }
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
    private static func isNumberByte(_ b: UInt8) -> Bool {
        (0x30...0x39).contains(b) || b == UInt8(ascii: "-") || b == UInt8(ascii: "+") || b == UInt8(ascii: ".")
            || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
    }

    private mutating func consume(_ byte: UInt8, at offset: Int) {
        bytesScanned += 1
        switch leaf {
        case .string(var state)?:
            switch Self.step(&state, byte) {
            case .more: leaf = .string(state)
            case .closed:
                leaf = nil
                deliver(Builder.string(state.text, complete: true), at: offset)
            case .failed(let message): fail(message, at: offset)
            }
            return
        case .number(var bytes, let start)?:
            if Self.isNumberByte(byte) {
                bytes.append(byte)
                leaf = .number(bytes, start: start)
                return
            }
            leaf = nil
            let consumed = finishNumber(bytes, start: start, more: true)
            // What the number's grammar did not take goes to the container (which refuses it).
            for (index, extra) in bytes[consumed...].enumerated() where failure == nil {
                consume(extra, at: start + consumed + index)
            }
            if failure == nil { consume(byte, at: offset) }
            return
        case .literal(let word, let matched, let literal)?:
            guard byte == word[matched] else { return fail("invalid literal", at: offset) }
            if matched + 1 == word.count {
                leaf = nil
                deliver(Self.build(literal, complete: true), at: offset)
            } else {
                leaf = .literal(word, matched: matched + 1, literal)
            }
            return
        case nil:
            break
        }
        guard let frame = frames.last else {
            if topValue != nil {
                if !Self.isSpace(byte) { fail("unexpected text after the JSON value", at: offset) }
            } else if !Self.isSpace(byte) {
                beginValue(byte, at: offset)
            }
            return
        }
        if Self.isSpace(byte), !isInKey { return }
        switch frame {
        case .array(let elements, let state):
            switch state {
            case .start where byte == UInt8(ascii: "]"), .afterValue where byte == UInt8(ascii: "]"):
                frames.removeLast()
                deliver(Builder.array(elements, complete: true), at: offset)
            case .afterValue where byte == UInt8(ascii: ","):
                frames[frames.count - 1] = .array(elements, .value)
            case .afterValue:
                fail("expected ',' or ']' in array", at: offset)
            case .start, .value:
                beginValue(byte, at: offset)
            }
        case .object(let members, let keys, let state):
            switch state {
            case .start where byte == UInt8(ascii: "}"), .afterValue where byte == UInt8(ascii: "}"):
                frames.removeLast()
                deliver(Builder.object(members, complete: true), at: offset)
            case .start where byte == UInt8(ascii: "\""), .key where byte == UInt8(ascii: "\""):
                key = StringState()
                frames[frames.count - 1] = .object(members, keys: keys, .inKey)
            case .inKey:
                switch Self.step(&key, byte) {
                case .more: break
                case .closed: frames[frames.count - 1] = .object(members, keys: keys, .colon(key.text))
                case .failed(let message): fail(message, at: offset)
                }
            case .colon(let name) where byte == UInt8(ascii: ":"):
                frames[frames.count - 1] = .object(members, keys: keys, .value(name))
            case .value:
                beginValue(byte, at: offset)
            case .afterValue where byte == UInt8(ascii: ","):
                frames[frames.count - 1] = .object(members, keys: keys, .key)
            case .start, .key:
                fail("expected a property name", at: offset)
            case .colon:
                fail("expected ':' after property name", at: offset)
            case .afterValue:
                fail("expected ',' or '}' in object", at: offset)
            }
        }
    }

    private var isInKey: Bool {
        if case .object(_, _, .inKey)? = frames.last { return true }
        return false
    }

    private static func build(_ literal: Literal, complete: Bool) -> Value {
        switch literal {
        case .null: Builder.null(complete: complete)
        case .bool(let value): Builder.bool(value, complete: complete)
        }
    }

    private mutating func beginValue(_ byte: UInt8, at offset: Int) {
        switch byte {
        case UInt8(ascii: "["), UInt8(ascii: "{"):
            guard frames.count < Self.maximumDepth else { return fail("nesting deeper than \(Self.maximumDepth)", at: offset) }
            frames.append(byte == UInt8(ascii: "[") ? .array([], .start) : .object([], keys: [], .start))
        case UInt8(ascii: "\""): leaf = .string(StringState())
        case UInt8(ascii: "t"): leaf = .literal(Array("true".utf8), matched: 1, .bool(true))
        case UInt8(ascii: "f"): leaf = .literal(Array("false".utf8), matched: 1, .bool(false))
        case UInt8(ascii: "n"): leaf = .literal(Array("null".utf8), matched: 1, .null)
        case UInt8(ascii: "-"), 0x30...0x39: leaf = .number([byte], start: offset)
        default: fail("unexpected character '\(Character(UnicodeScalar(byte)))'", at: offset)
        }
    }

    /// Delivers a number that has ended; returns how many of its bytes its grammar took.
    @discardableResult
    private mutating func finishNumber(_ bytes: [UInt8], start: Int, more: Bool) -> Int {
        let scan: NumberScan
        do {
            scan = try Self.scanNumber(bytes, more: more)
        } catch {
            fail(error.message, at: start + error.offset)
            return bytes.count
        }
        guard scan.usableEnd == scan.consumed, scan.usableEnd > 0 else {
            fail("malformed number", at: start)
            return bytes.count
        }
        guard let value = Builder.number(String(decoding: bytes[..<scan.usableEnd], as: UTF8.self), complete: true) else {
            fail("number out of range", at: start)
            return bytes.count
        }
        deliver(value, at: start)
        return scan.consumed
    }

    /// Hands a finished value to the innermost container.
    private mutating func deliver(_ value: Value, at offset: Int) {
        guard !frames.isEmpty else {
            topValue = value
            return
        }
        // Taken out of the stack so the container's storage is unique while it grows.
        switch frames.removeLast() {
        case .array(var elements, _):
            elements.append(value)
            frames.append(.array(elements, .afterValue))
        case .object(var members, var keys, .value(let name)):
            guard Builder.keepsDuplicateKeys || keys.insert(name).inserted else {
                return fail("duplicate property '\(name)'", at: offset)
            }
            members.append((name, value))
            frames.append(.object(members, keys: keys, .afterValue))
        case .object:
            fail("a value where a property name belongs", at: offset)
        }
    }

    // MARK: Strings

    private enum StringStep { case more, closed, failed(String) }

    /// Decodes `state.pending` into `state.text`. `final`: the string (or the piece before an escape)
    /// ends here, so every byte must decode; otherwise up to three bytes of a cut character may wait.
    private static func decodePending(_ state: inout StringState, final: Bool) -> Bool {
        guard !state.pending.isEmpty else { return true }
        if let text = String(validating: state.pending, as: UTF8.self) {
            state.text += text
            state.pending.removeAll(keepingCapacity: true)
            return true
        }
        guard !final else { return false }
        for cut in 1...min(3, state.pending.count) {
            let head = state.pending.dropLast(cut)
            // The bytes kept back must start a multi-byte character.
            guard let lead = state.pending.dropFirst(head.count).first, lead >= 0xC0 else { continue }
            if let text = String(validating: head, as: UTF8.self) {
                state.text += text
                state.pending.removeFirst(head.count)
                return true
            }
        }
        return false
    }

    /// Whether `byte` can follow the string's bytes so far in UTF-8 (Unicode's table 3-7: no overlong
    /// forms, surrogates or code points past U+10FFFF), the same set `String(validating:)` accepts.
    private static func checkUTF8(_ s: inout StringState, _ byte: UInt8) -> Bool {
        if s.continuations > 0 {
            guard (s.nextLow...s.nextHigh).contains(byte) else { return false }
            s.continuations -= 1
            (s.nextLow, s.nextHigh) = (0x80, 0xBF)
            return true
        }
        switch byte {
        case 0x00...0x7F: return true
        case 0xC2...0xDF: s.continuations = 1
        case 0xE0: (s.continuations, s.nextLow) = (2, 0xA0)
        case 0xE1...0xEC, 0xEE...0xEF: s.continuations = 2
        case 0xED: (s.continuations, s.nextHigh) = (2, 0x9F)
        case 0xF0: (s.continuations, s.nextLow) = (3, 0x90)
        case 0xF1...0xF3: s.continuations = 3
        case 0xF4: (s.continuations, s.nextHigh) = (3, 0x8F)
        default: return false
        }
        return true
    }

    /// One byte of a string's body.
    private static func step(_ s: inout StringState, _ byte: UInt8) -> StringStep {
        func append(_ scalar: UnicodeScalar) -> StringStep {
            guard decodePending(&s, final: true) else { return .failed("invalid UTF-8 in string") }
            s.text.unicodeScalars.append(scalar)
            return .more
        }
        switch s.escape {
        case .none:
            if byte == UInt8(ascii: "\"") {
                return decodePending(&s, final: true) ? .closed : .failed("invalid UTF-8 in string")
            }
            if byte < 0x20 { return .failed("control character in string") }
            if byte == UInt8(ascii: "\\") { s.escape = .backslash; return .more }
            guard checkUTF8(&s, byte) else { return .failed("invalid UTF-8 in string") }
            s.pending.append(byte)
            return .more
        case .backslash:
            s.escape = .none
            switch byte {
            case UInt8(ascii: "\""): return append("\"")
            case UInt8(ascii: "\\"): return append("\\")
            case UInt8(ascii: "/"): return append("/")
            case UInt8(ascii: "b"): return append("\u{08}")
            case UInt8(ascii: "f"): return append("\u{0C}")
            case UInt8(ascii: "n"): return append("\n")
            case UInt8(ascii: "r"): return append("\r")
            case UInt8(ascii: "t"): return append("\t")
            case UInt8(ascii: "u"): s.escape = .unicode(0, 0); return .more
            default: return .failed("invalid escape in string")
            }
        case .unicode(let value, let digits):
            guard let d = JSONParser.hexValue(byte) else { return .failed("invalid \\u escape") }
            let unit = value * 16 + d
            guard digits == 3 else { s.escape = .unicode(unit, digits + 1); return .more }
            if (0xD800..<0xDC00).contains(unit) { s.escape = .lowBackslash(unit); return .more }
            s.escape = .none
            if let scalar = UnicodeScalar(unit) { return append(scalar) }
            return Builder.replacesLoneSurrogates ? append("\u{FFFD}") : .failed("unpaired surrogate in string")
        case .lowBackslash(let high):
            // A high surrogate needs its low half: `\uD83D\uDE00`.
            guard byte == UInt8(ascii: "\\") else {
                guard Builder.replacesLoneSurrogates else { return .failed("unpaired surrogate in string") }
                s.escape = .none
                if case .failed(let message) = append("\u{FFFD}") { return .failed(message) }
                return step(&s, byte)
            }
            s.escape = .lowU(high)
            return .more
        case .lowU(let high):
            guard byte == UInt8(ascii: "u") else {
                guard Builder.replacesLoneSurrogates else { return .failed("unpaired surrogate in string") }
                s.escape = .backslash
                if case .failed(let message) = append("\u{FFFD}") { return .failed(message) }
                return step(&s, byte)
            }
            s.escape = .low(high, 0, 0)
            return .more
        case .low(let high, let value, let digits):
            guard let d = JSONParser.hexValue(byte) else { return .failed("invalid \\u escape") }
            let low = value * 16 + d
            guard digits == 3 else { s.escape = .low(high, low, digits + 1); return .more }
            s.escape = .none
            if (0xDC00..<0xE000).contains(low), let scalar = UnicodeScalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)) {
                return append(scalar)
            }
            return Builder.replacesLoneSurrogates ? append("\u{FFFD}") : .failed("invalid surrogate pair in string")
        }
    }

    // MARK: Numbers

    private struct NumberError: Error {
        let message: String
        let offset: Int
    }

    /// The bytes of `bytes` a number's grammar takes (`consumed`) and the longest prefix of them that is a
    /// whole number (`usableEnd`: `1.` has 1, a lone `-` has 0). `more`: another byte, never part of a
    /// number, follows `bytes`.
    private struct NumberScan {
        var usableEnd: Int
        var consumed: Int
    }

    private static func scanNumber(_ bytes: [UInt8], more: Bool) throws(NumberError) -> NumberScan {
        let count = bytes.count + (more ? 1 : 0)
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
        if intDigits > 1, bytes[bytes[0] == UInt8(ascii: "-") ? 1 : 0] == 0x30 {
            throw NumberError(message: "leading zero in number", offset: 0)
        }
        if intDigits > 0, p < count, at(p) == UInt8(ascii: ".") {
            p += 1
            if digits(&p) > 0 { usableEnd = p } else if p < count { throw NumberError(message: "expected digits after '.'", offset: p) }
        }
        if usableEnd == p, intDigits > 0, p < count, at(p) == UInt8(ascii: "e") || at(p) == UInt8(ascii: "E") {
            p += 1
            if p < count, at(p) == UInt8(ascii: "+") || at(p) == UInt8(ascii: "-") { p += 1 }
            if digits(&p) > 0 { usableEnd = p } else if p < count { throw NumberError(message: "expected digits in exponent", offset: p) }
        }
        if intDigits == 0, p < count { throw NumberError(message: "expected a digit", offset: p) }
        return NumberScan(usableEnd: usableEnd, consumed: min(p, bytes.count))
    }

    // MARK: Snapshots

    /// Everything read so far as a value, cut-off parts marked incomplete; `nil` before any value
    /// (or a lone `-`) and once the text is not a JSON prefix.
    package var snapshot: Value? {
        guard failure == nil else { return nil }
        var child: Value?
        switch leaf {
        case .string(let state)?:
            child = Builder.string(state.text, complete: false)
        case .number(let bytes, _)?:
            // Bytes the number's grammar leaves (`1.5.`) can follow no value: the prefix is invalid.
            guard let scan = try? Self.scanNumber(bytes, more: false), scan.consumed == bytes.count else { return nil }
            if scan.usableEnd > 0 {
                guard let value = Builder.number(String(decoding: bytes[..<scan.usableEnd], as: UTF8.self), complete: false)
                else { return nil }
                child = value
            }
        case .literal(_, _, let literal)?:
            child = Self.build(literal, complete: false)
        case nil:
            break
        }
        for frame in frames.reversed() {
            switch frame {
            case .array(var elements, _):
                if let child { elements.append(child) }
                child = Builder.array(elements, complete: false)
            case .object(var members, let keys, let state):
                if case .value(let name) = state, let value = child {
                    guard Builder.keepsDuplicateKeys || !keys.contains(name) else { return nil }
                    members.append((name, value))
                }
                child = Builder.object(members, complete: false)
            }
        }
        return child ?? topValue
    }
}
