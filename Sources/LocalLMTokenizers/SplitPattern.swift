/// One regex of a BPE pre-tokenizer, written as a hand scanner over code points.
///
/// llama.cpp applies a list of regexes one after the other; each regex splits every current segment
/// into its matches and the text between them (see `PreTokenizer.split`). A pattern here answers one
/// question: how long is the match that starts exactly at `pos`? Trying it at each position in turn
/// gives the same leftmost matches as `std::regex_iterator`, and each alternation below follows
/// ECMAScript's ordered, backtracking semantics for that particular regex. Code points outside the
/// segment read as "no code point" (flags 0), as llama.cpp's scanners do.
enum SplitPattern: Sendable {
    /// `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)` (GPT-2), where a code
    /// point that matches nothing becomes a piece of its own, as in llama.cpp's custom GPT-2 scanner.
    case gpt2
    /// `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,k}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
    /// and its variants: Llama 3 (k = 3), Qwen2 (k = 1), Qwen3.5 (`\p{M}` joins letters), Seed-Coder
    /// (no `[\r\n]*` after punctuation), MiniCPM5 (`\p{N}+`), ufakzeka (no contractions).
    case wordFamily(WordFamily)
    /// GPT-4o / Llama 4 / Tekken: letter runs split at lower→upper case changes, using llama.cpp's
    /// `((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+` approximation of `\p{Lu}*\p{Ll}+`.
    case caseSplit(maxDigits: Int, contractions: Bool)
    /// `\p{N}` (one number code point).
    case number
    /// `\p{N}+`, or `\p{N}{1,k}` when `maxCount` is given.
    case numberRun(maxCount: Int?)
    /// `[0-9][0-9][0-9]`.
    case threeASCIIDigits
    /// `[\p{P}\$\+<=>\^~\|]+` (and with a backquote, Falcon).
    case punctuationRun(backquote: Bool)
    /// `[\r\n]`.
    case lineBreak
    /// `\s?\p{L}+` or `\s?\p{P}+`.
    case optionalSpaceRun(UnicodeFlags)
    /// `[ranges]+`, with an optional leading `\s?`.
    case rangesRun(CodePointRanges, optionalSpace: Bool)
    /// `\s+$` (whitespace reaching the end of the segment).
    case trailingWhitespace
    /// ` ?[^(\s|.,!?…。，、।۔،)]+` (Poro, BLOOM, GPT-3 Finnish, Viking).
    case notSentencePunctuation
    /// `[^\n]+|[\n]+`.
    case newlineRuns
    /// Chameleon's `<sentinel:[0-9]+>`.
    case chameleonSentinel
    /// Chameleon's `(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z`.
    case chameleonImage
    /// Chameleon's `([\t\n]|    |  )`.
    case chameleonWhitespace
    /// Chameleon's `[\p{P}!-/:-@\[-`{-~]`.
    case chameleonPunctuation

    struct WordFamily: Sendable {
        /// 0 = unlimited.
        var maxDigits: Int
        var marksJoinLetters = false
        var lineBreaksAfterPunctuation = true
        var contractions = true
    }
}

/// Sorted, disjoint closed ranges of code points: a regex character class written with literal code points.
struct CodePointRanges: Sendable {
    private let lows: [UInt32]
    private let highs: [UInt32]

    /// Parses the inside of a `[...]` class made of single characters and `a-b` ranges.
    init(_ classBody: String) {
        let scalars = Array(classBody.unicodeScalars).map(\.value)
        var pairs: [(UInt32, UInt32)] = []
        var i = 0
        while i < scalars.count {
            if i + 2 < scalars.count && scalars[i + 1] == 0x2D {
                // A reversed range would be a regex error; none of the built-in classes has one.
                if scalars[i] <= scalars[i + 2] { pairs.append((scalars[i], scalars[i + 2])) }
                i += 3
            } else {
                pairs.append((scalars[i], scalars[i]))
                i += 1
            }
        }
        pairs.sort { $0.0 < $1.0 }
        // Merge overlapping ranges (classes such as `[ࠀ-一一-龥]` share end points).
        var merged: [(UInt32, UInt32)] = []
        for pair in pairs {
            if let last = merged.last, pair.0 <= last.1 &+ 1 {
                merged[merged.count - 1].1 = max(last.1, pair.1)
            } else {
                merged.append(pair)
            }
        }
        lows = merged.map(\.0)
        highs = merged.map(\.1)
    }

    @inline(__always)
    func contains(_ cp: UInt32) -> Bool {
        // Binary search for the last range starting at or before cp.
        var lo = 0
        var hi = lows.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if lows[mid] <= cp { lo = mid + 1 } else { hi = mid }
        }
        return lo > 0 && cp <= highs[lo - 1]
    }
}

/// The code points of one text and their flags, read by the patterns.
struct ScanInput {
    let cps: UnsafeBufferPointer<UInt32>
    let flags: UnsafeBufferPointer<UInt8>

    /// Flags at `pos`, or none outside `[0, end)`.
    @inline(__always)
    func f(_ pos: Int, _ end: Int) -> UnicodeFlags {
        pos < end ? UnicodeFlags(rawValue: flags[pos]) : UnicodeFlags(rawValue: 0)
    }

    /// Code point at `pos`, or 0xFFFFFFFF outside `[0, end)`.
    @inline(__always)
    func c(_ pos: Int, _ end: Int) -> UInt32 {
        pos < end ? cps[pos] : 0xFFFF_FFFF
    }
}

@inline(__always)
private func isLineBreak(_ c: UInt32) -> Bool { c == 0x0A || c == 0x0D }

@inline(__always)
private func asciiLower(_ c: UInt32) -> UInt32 { (c >= 0x41 && c <= 0x5A) ? c + 0x20 : c }

/// `'s|'t|'re|'ve|'m|'ll|'d` at `pos`, optionally case-insensitive: the match length or 0.
@inline(__always)
private func contraction(_ s: ScanInput, _ pos: Int, _ end: Int, caseInsensitive: Bool) -> Int {
    guard s.c(pos, end) == 0x27, pos + 1 < end else { return 0 }
    let n1 = caseInsensitive ? asciiLower(s.cps[pos + 1]) : s.cps[pos + 1]
    if n1 == 0x73 || n1 == 0x74 || n1 == 0x6D || n1 == 0x64 { return 2 }  // s t m d
    if pos + 2 < end {
        let n2 = caseInsensitive ? asciiLower(s.cps[pos + 2]) : s.cps[pos + 2]
        if (n1 == 0x72 && n2 == 0x65) || (n1 == 0x76 && n2 == 0x65) || (n1 == 0x6C && n2 == 0x6C) { return 3 }  // re ve ll
    }
    return 0
}

private let notWordClass: UnicodeFlags = [.whitespace, .letter, .number]

extension SplitPattern {
    /// The length in code points of this pattern's match starting at `pos` (< `end`), or 0 for none.
    @inline(__always)
    func match(_ s: ScanInput, _ pos: Int, _ end: Int) -> Int {
        switch self {
        case .gpt2: return SplitPattern.matchGPT2(s, pos, end)
        case .wordFamily(let family): return SplitPattern.matchWordFamily(s, pos, end, family)
        case .caseSplit(let maxDigits, let contractions):
            return SplitPattern.matchCaseSplit(s, pos, end, maxDigits: maxDigits, contractions: contractions)
        case .number:
            return s.f(pos, end).contains(.number) ? 1 : 0
        case .numberRun(let maxCount):
            var p = pos
            let limit = maxCount.map { min(end, pos + $0) } ?? end
            while p < limit && s.f(p, end).contains(.number) { p += 1 }
            return p - pos
        case .threeASCIIDigits:
            for k in 0..<3 {
                let c = s.c(pos + k, end)
                if !(c >= 0x30 && c <= 0x39) { return 0 }
            }
            return 3
        case .punctuationRun(let backquote):
            var p = pos
            while p < end {
                let c = s.cps[p]
                let extra = c == 0x24 || c == 0x2B || c == 0x3C || c == 0x3D || c == 0x3E || c == 0x5E || c == 0x7E
                    || c == 0x7C || (backquote && c == 0x60)
                if !(extra || s.f(p, end).contains(.punctuation)) { break }
                p += 1
            }
            return p - pos
        case .lineBreak:
            return isLineBreak(s.cps[pos]) ? 1 : 0
        case .optionalSpaceRun(let cls):
            var p = pos
            if s.f(p, end).contains(.whitespace) && s.f(p + 1, end).contains(cls) { p += 1 }
            let start = p
            while s.f(p, end).contains(cls) { p += 1 }
            return p > start ? p - pos : 0
        case .rangesRun(let ranges, let optionalSpace):
            var p = pos
            if optionalSpace && s.f(p, end).contains(.whitespace) && p + 1 < end && ranges.contains(s.cps[p + 1]) { p += 1 }
            let start = p
            while p < end && ranges.contains(s.cps[p]) { p += 1 }
            return p > start ? p - pos : 0
        case .trailingWhitespace:
            var p = pos
            while s.f(p, end).contains(.whitespace) { p += 1 }
            return p == end ? p - pos : 0
        case .notSentencePunctuation:
            @inline(__always) func allowed(_ p: Int) -> Bool {
                guard p < end else { return false }
                let c = s.cps[p]
                if s.f(p, end).contains(.whitespace) { return false }
                switch c {
                case 0x28, 0x7C, 0x2E, 0x2C, 0x21, 0x3F, 0x29, 0x2026, 0x3002, 0xFF0C, 0x3001, 0x0964, 0x06D4, 0x060C:
                    return false
                default: return true
                }
            }
            var p = pos
            if s.cps[p] == 0x20 && allowed(p + 1) { p += 1 }
            let start = p
            while allowed(p) { p += 1 }
            return p > start ? p - pos : 0
        case .newlineRuns:
            let newline = s.cps[pos] == 0x0A
            var p = pos
            while p < end && (s.cps[p] == 0x0A) == newline { p += 1 }
            return p - pos
        case .chameleonSentinel:
            let prefix: [UInt32] = Array("<sentinel:".unicodeScalars).map(\.value)
            for (k, ch) in prefix.enumerated() where s.c(pos + k, end) != ch { return 0 }
            var p = pos + prefix.count
            let digits = p
            while p < end && s.cps[p] >= 0x30 && s.cps[p] <= 0x39 { p += 1 }
            guard p > digits, s.c(p, end) == 0x3E else { return 0 }
            return p + 1 - pos
        case .chameleonImage:
            for k in 0..<6 where s.c(pos + k, end) != Array("IMGIMG".unicodeScalars)[k].value { return 0 }
            // (A|…|I){1,4} is greedy, then backtracks until a Z follows.
            var n = 0
            while n < 4, case let c = s.c(pos + 6 + n, end), c >= 0x41 && c <= 0x49 { n += 1 }
            while n >= 1 {
                if s.c(pos + 6 + n, end) == 0x5A { return 6 + n + 1 }
                n -= 1
            }
            return 0
        case .chameleonWhitespace:
            let c = s.cps[pos]
            if c == 0x09 || c == 0x0A { return 1 }
            if (0..<4).allSatisfy({ s.c(pos + $0, end) == 0x20 }) { return 4 }
            if (0..<2).allSatisfy({ s.c(pos + $0, end) == 0x20 }) { return 2 }
            return 0
        case .chameleonPunctuation:
            let c = s.cps[pos]
            let ascii = (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E)
            return ascii || s.f(pos, end).contains(.punctuation) ? 1 : 0
        }
    }

    /// Mirrors llama.cpp's `unicode_regex_split_custom_gpt2`; never returns 0.
    @inline(__always)
    static func matchGPT2(_ s: ScanInput, _ pos: Int, _ end: Int) -> Int {
        let c = s.cps[pos]
        let n = contraction(s, pos, end, caseInsensitive: false)
        if n > 0 { return n }
        let space = c == 0x20 ? 1 : 0
        let f2 = s.f(pos + space, end)
        if f2.contains(.letter) {
            var p = pos + space
            while s.f(p, end).contains(.letter) { p += 1 }
            return p - pos
        }
        if f2.contains(.number) {
            var p = pos + space
            while s.f(p, end).contains(.number) { p += 1 }
            return p - pos
        }
        if f2.isDisjoint(with: notWordClass) && f2.rawValue != 0 {
            var p = pos + space
            while case let f = s.f(p, end), f.isDisjoint(with: notWordClass) && f.rawValue != 0 { p += 1 }
            return p - pos
        }
        var ws = 0
        while s.f(pos + ws, end).contains(.whitespace) { ws += 1 }
        if ws > 1 && pos + ws < end { return ws - 1 }  // \s+(?!\S)
        if ws > 0 { return ws }
        return 1
    }

    /// Mirrors llama.cpp's `unicode_regex_split_custom_llama3` / `_qwen2` / `_qwen35` and the
    /// `std::regex` behaviour of the other members; never returns 0.
    @inline(__always)
    static func matchWordFamily(_ s: ScanInput, _ pos: Int, _ end: Int, _ family: WordFamily) -> Int {
        let c = s.cps[pos]
        let f = s.f(pos, end)
        if family.contractions {
            let n = contraction(s, pos, end, caseInsensitive: true)
            if n > 0 { return n }
        }
        let letters: UnicodeFlags = family.marksJoinLetters ? [.letter, .mark] : .letter
        // [^\r\n\p{L}\p{N}]?\p{L}+
        if !(isLineBreak(c) || f.contains(.number)) {
            if !f.isDisjoint(with: letters) || !s.f(pos + 1, end).isDisjoint(with: letters) {
                var p = pos + 1
                while !s.f(p, end).isDisjoint(with: letters) { p += 1 }
                return p - pos
            }
        }
        // \p{N}{1,k}
        if f.contains(.number) {
            var p = pos + 1
            while (family.maxDigits == 0 || p - pos < family.maxDigits) && s.f(p, end).contains(.number) { p += 1 }
            return p - pos
        }
        // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
        let notPunct: UnicodeFlags = family.marksJoinLetters ? [.whitespace, .letter, .number, .mark] : notWordClass
        let space = c == 0x20 ? 1 : 0
        let f2 = s.f(pos + space, end)
        if f2.isDisjoint(with: notPunct) {
            var p = pos + space
            while case let g = s.f(p, end), g.isDisjoint(with: notPunct) && g.rawValue != 0 { p += 1 }
            if family.lineBreaksAfterPunctuation {
                while isLineBreak(s.c(p, end)) { p += 1 }
            }
            return p - pos
        }
        // \s*[\r\n]+ | \s+(?!\S) | \s+
        var ws = 0
        var lastBreakEnd = 0
        while s.f(pos + ws, end).contains(.whitespace) {
            if isLineBreak(s.cps[pos + ws]) { lastBreakEnd = pos + ws + 1 }
            ws += 1
        }
        if lastBreakEnd > 0 { return lastBreakEnd - pos }
        if ws > 1 && pos + ws < end { return ws - 1 }
        if ws > 0 { return ws }
        return 1
    }
}

extension SplitPattern {
    /// GPT-4o / Tekken:
    /// `[^\r\n\p{L}\p{N}]?U*W+C?|[^\r\n\p{L}\p{N}]?U+W*C?|\p{N}{1,k}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
    /// where U = a letter that is not a-z, W = a letter that is not A-Z (so a non-ASCII letter is both,
    /// as in llama.cpp), C = an optional contraction. Never returns 0.
    static func matchCaseSplit(_ s: ScanInput, _ pos: Int, _ end: Int, maxDigits: Int, contractions: Bool) -> Int {
        @inline(__always) func upperish(_ p: Int) -> Bool {
            guard p < end, s.f(p, end).contains(.letter) else { return false }
            let c = s.cps[p]
            return !(c >= 0x61 && c <= 0x7A)
        }
        @inline(__always) func lowerish(_ p: Int) -> Bool {
            guard p < end, s.f(p, end).contains(.letter) else { return false }
            let c = s.cps[p]
            return !(c >= 0x41 && c <= 0x5A)
        }
        @inline(__always) func finish(_ p: Int) -> Int {
            contractions ? p + contraction(s, p, end, caseInsensitive: true) - pos : p - pos
        }
        let c = s.cps[pos]
        let f = s.f(pos, end)
        let prefix = !(isLineBreak(c) || f.contains(.letter) || f.contains(.number)) ? 1 : 0
        let start = pos + prefix
        var k = 0
        while upperish(start + k) { k += 1 }
        // U* W+: U* gives back code points until W+ can start.
        var j = start + k
        while j >= start && !lowerish(j) { j -= 1 }
        if j >= start {
            var p = j
            while lowerish(p) { p += 1 }
            return finish(p)
        }
        // U+ W*
        if k > 0 {
            var p = start + k
            while lowerish(p) { p += 1 }
            return finish(p)
        }
        if f.contains(.number) {
            var p = pos + 1
            while p - pos < maxDigits && s.f(p, end).contains(.number) { p += 1 }
            return p - pos
        }
        let space = c == 0x20 ? 1 : 0
        let f2 = s.f(pos + space, end)
        if f2.isDisjoint(with: notWordClass) && f2.rawValue != 0 {
            var p = pos + space
            while case let g = s.f(p, end), g.isDisjoint(with: notWordClass) && g.rawValue != 0 { p += 1 }
            while case let t = s.c(p, end), isLineBreak(t) || t == 0x2F { p += 1 }
            return p - pos
        }
        var ws = 0
        var lastBreakEnd = 0
        while s.f(pos + ws, end).contains(.whitespace) {
            if isLineBreak(s.cps[pos + ws]) { lastBreakEnd = pos + ws + 1 }
            ws += 1
        }
        if lastBreakEnd > 0 { return lastBreakEnd - pos }
        if ws > 1 && pos + ws < end { return ws - 1 }
        if ws > 0 { return ws }
        return 1
    }
}
