// libFuzzer target: the streaming JSON parsers on arbitrary bytes. The input is cut into chunks (at
// the positions its own bytes pick); after every chunk the streaming parser's snapshot must equal
// what the whole-prefix parser gives for the text so far (`null` where that throws), as
// StreamingJSONParserTests asserts for fixed documents. Then the strict parser reads the whole text.
@testable import LocalLMJSON

/// A plain tree to compare the parsers' output with (GeneratedContent lives in the session layer).
private indirect enum Tree: JSONPrefixValue, Equatable {
    case value(String, complete: Bool)
    case array([Tree], complete: Bool)
    case object([String: Tree], [String], complete: Bool)

    init(prefixKind kind: JSONPrefixKind<Tree>, isComplete: Bool) {
        switch kind {
        case .null: self = .value("null", complete: isComplete)
        case .bool(let b): self = .value(b ? "true" : "false", complete: isComplete)
        case .number(let n): self = .value("n\(n.bitPattern)", complete: isComplete)
        case .string(let s): self = .value("s" + s, complete: isComplete)
        case .array(let elements): self = .array(elements, complete: isComplete && elements.allSatisfy(\.isComplete))
        case .object(let properties, let keys):
            self = .object(properties, keys, complete: isComplete && properties.values.allSatisfy(\.isComplete))
        }
    }

    var isComplete: Bool {
        switch self {
        case .value(_, let c), .array(_, let c), .object(_, _, let c): c
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPartialJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    // The session feeds the parser Strings (deltas of the model's text), so the text is UTF-8.
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let scalars = Array(text.unicodeScalars)
    var stream = JSONStreamParser<Tree>()
    var fed = 0
    var chunk = 0
    while fed < scalars.count {
        // Chunk lengths picked by the bytes themselves: 1...8 scalars, longer for long inputs so that
        // at most about 64 whole-prefix parses check each input.
        let longest = max(8, scalars.count / 32)
        let length = min(scalars.count - fed, 1 + Int(scalars[(fed + chunk) % scalars.count].value) % longest)
        var piece = String.UnicodeScalarView()
        piece.append(contentsOf: scalars[fed..<fed + length])
        stream.append(String(piece))
        fed += length
        chunk += 1
        var prefixText = String.UnicodeScalarView()
        prefixText.append(contentsOf: scalars[..<fed])
        var whole = JSONPrefixParser<Tree>(Array(String(prefixText).utf8))
        let expected = (try? whole.parseDocument()) ?? Tree(prefixKind: .null, isComplete: true)
        let snapshot = stream.content
        if snapshot != expected {
            fatalError("after \(fed) scalars the stream gives \(snapshot), the prefix parser \(expected)")
        }
    }
    _ = try? JSONParser.parse(Array(text.utf8))
    return 0
}
