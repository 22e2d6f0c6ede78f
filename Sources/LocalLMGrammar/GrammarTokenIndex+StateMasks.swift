import LocalLMSync

/// Whole masks by matcher state, for the states a grammar meets again: the elements of an array of
/// objects, each request of a server on one schema, each instance MaskBench runs through a schema.
/// A mask is a function of the state alone (every stack and whether the grammar can end), so a state
/// met before costs a lookup and a copy instead of its entries' union and its uncertain tokens'
/// re-runs. Keyed by the stacks written out as positions (`GrammarMatcher.stateFingerprint`), so
/// matchers with their own stack pools share it; bounded in bytes, in two generations as
/// `SharedMaskEntries` (a state used in every generation stays).
final class StateMasks: Sendable {
    /// Bytes of masks kept at most (both generations), per grammar and vocabulary.
    static let maxBytes = 16 << 20

    /// A mask as stored: dense words, or the non-zero words alone when they are few.
    struct Stored: Sendable {
        let dense: [UInt64]
        let sparse: [(index: Int32, word: UInt64)]
        var byteCount: Int { 8 * dense.count + 16 * sparse.count }

        init(_ mask: UnsafeMutableBufferPointer<UInt64>, words: Int) {
            var nonZero = 0
            for w in 0..<words where mask[w] != 0 { nonZero += 1 }
            if nonZero * 3 < words {
                var sparse: [(index: Int32, word: UInt64)] = []
                sparse.reserveCapacity(nonZero)
                for w in 0..<words where mask[w] != 0 { sparse.append((Int32(w), mask[w])) }
                self.sparse = sparse
                dense = []
            } else {
                dense = Array(mask[0..<words])
                sparse = []
            }
        }

        /// Writes the mask into `mask` (already cleared).
        func write(into mask: UnsafeMutableBufferPointer<UInt64>) {
            if !dense.isEmpty {
                for w in dense.indices { mask[w] = dense[w] }
            } else {
                for (w, word) in sparse { mask[Int(w)] = word }
            }
        }
    }

    private let generations = SanitizableMutex(
        TwoGenerations<HashedWords<Int32>, Stored>(bytesPerGeneration: maxBytes / 2))

    func mask(_ key: HashedWords<Int32>) -> Stored? {
        generations.withLock { $0.value(for: key) { $0.byteCount + 4 * key.words.count + 64 } }
    }

    /// Masks held (both generations), for tests.
    var count: Int { generations.withLock { $0.count } }

    func store(_ key: HashedWords<Int32>, _ mask: Stored) {
        generations.withLock { $0.insert(mask, for: key, bytes: mask.byteCount + 4 * key.words.count + 64) }
    }
}
