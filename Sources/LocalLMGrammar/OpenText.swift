import LocalLMSync

/// The mask entry every open text key starts from (see `StackPool.holdsOpenText`), per vocabulary:
/// tokens of text — printable ASCII but quote and backslash, and well-formed UTF-8, the last
/// character possibly cut off — accepted, every other token uncertain (in trie order, with common
/// prefixes). From a stack set holding an open text rule's stacks, text of any length is taken,
/// so a key's entry is this one with only its uncertain tokens run (`GrammarTokenIndex.openTextEntry`):
/// the states of a long searched pattern (`[a-zA-Z0-9_-]{162}`, one per character read) each cost
/// a run of the few thousand tokens holding a quote, a backslash or a control byte, not a walk of
/// the vocabulary. Built when first asked for and shared by every grammar.
final class OpenTextBase: Sendable {
    private let built = SanitizableMutex<MaskEntry?>(nil)

    func entry(_ tokens: TokenTable) -> MaskEntry {
        if let e = built.withLock({ $0 }) { return e }
        let e = MaskEntry(openTextOf: tokens)
        built.withLock { $0 = e }
        return e
    }
}

extension MaskEntry {
    /// `OpenTextBase`'s entry for `tokens`.
    init(openTextOf tokens: TokenTable) {
        let trie = tokens.trie
        let text = StackSetDFA.openTextBytes
        var bits = [UInt64](repeating: 0, count: tokens.maskWordCount)
        var others: [Int32] = [], prefixes: [Int32] = []
        tokens.flatBytes.withUnsafeBufferPointer { flat in
            for t in trie.order {
                var state = 0, isText = true
                for i in Int(tokens.flatStart[Int(t)])..<Int(tokens.flatStart[Int(t) + 1]) {
                    let b = flat[i]
                    if state == 0 && b < 0x80 {
                        if !text.contains(b) { isText = false; break }
                    } else if let next = UTF8Prefix.next(state, b) {
                        state = next
                    } else {
                        isText = false
                        break
                    }
                }
                if isText {
                    bits[Int(t) >> 6] |= 1 << UInt64(t & 63)
                } else {
                    prefixes.append(others.last.map { Self.commonPrefix($0, t, tokens) } ?? 0)
                    others.append(t)
                }
            }
        }
        acceptedWords = bits
        acceptedList = []
        uncertain = others
        uncertainPrefix = prefixes
    }
}
