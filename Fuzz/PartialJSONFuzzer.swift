// libFuzzer target: the one JSON parser (JSONStreamParser) on arbitrary bytes, as the session feeds
// it the model's text piece by piece. The input is cut into pieces at positions its own bytes pick
// (anywhere, even inside a character or an escape). Checked: after every piece the snapshot equals
// that of a fresh parser given the whole text so far at once, and the end (`finish()`: the value or
// the error with its offset) does not depend on the cuts. Both builders run: JSONValue's (duplicate
// keys kept, lone surrogates replaced) and one with GeneratedContent's rules that records which
// values are incomplete.
@testable import LocalLMJSON

/// A tree with GeneratedContent's rules (duplicate keys and lone surrogates are errors) that keeps
/// the `complete` flags, so that they are compared too.
private enum Strict: JSONValueBuilding {
    indirect enum Tree: Equatable {
        case leaf(String, complete: Bool)
        case array([Tree], complete: Bool)
        case object([String], [Tree], complete: Bool)
    }

    static var keepsDuplicateKeys: Bool { false }
    static var replacesLoneSurrogates: Bool { false }
    static func null(complete: Bool) -> Tree { .leaf("null", complete: complete) }
    static func bool(_ value: Bool, complete: Bool) -> Tree { .leaf(String(value), complete: complete) }
    static func number(_ text: String, complete: Bool) -> Tree? { .leaf("n" + text, complete: complete) }
    static func string(_ text: String, complete: Bool) -> Tree { .leaf("s" + text, complete: complete) }
    static func array(_ elements: [Tree], complete: Bool) -> Tree { .array(elements, complete: complete) }
    static func object(_ members: [(key: String, value: Tree)], complete: Bool) -> Tree {
        .object(members.map(\.key), members.map(\.value), complete: complete)
    }
}

private func check<Builder: JSONValueBuilding>(_ bytes: UnsafeBufferPointer<UInt8>, _: Builder.Type) where Builder.Value: Equatable {
    var pieces = JSONStreamParser<Builder>()
    var fed = 0
    var cut = 0
    // Pieces of 1...8 bytes, longer for long inputs so that at most about 64 fresh parses check each input.
    let longest = max(8, bytes.count / 32)
    while fed < bytes.count {
        let length = min(bytes.count - fed, 1 + Int(bytes[(fed + cut) % bytes.count]) % longest)
        pieces.append(bytes: bytes[fed..<fed + length])
        fed += length
        cut += 1
        var whole = JSONStreamParser<Builder>()
        whole.append(bytes: bytes[..<fed])
        if pieces.snapshot != whole.snapshot {
            fatalError("after \(fed) bytes in \(cut) pieces the snapshot is \(String(describing: pieces.snapshot)), at once \(String(describing: whole.snapshot))")
        }
    }
    var whole = JSONStreamParser<Builder>()
    whole.append(bytes: bytes)
    let a = Result { () throws(JSONParser.Failure) in try pieces.finish() }
    let b = Result { () throws(JSONParser.Failure) in try whole.finish() }
    if a != b { fatalError("finish() in pieces gives \(a), at once \(b)") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPartialJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    check(bytes, JSONValue.Builder.self)
    check(bytes, Strict.self)
    return 0
}
