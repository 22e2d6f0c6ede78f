/// A BPE pre-tokenizer: the regexes that `tokenizer.ggml.pre` names, applied in order, as llama.cpp's
/// `llm_tokenizer_bpe` lists them. Each regex splits every current segment into its matches and the
/// text between matches; the final segments are the words that BPE merges run inside.
struct PreTokenizer: Sendable {
    let name: String
    let patterns: [SplitPattern]
    /// `tokenizer.ggml.pre` settings that llama.cpp ties to the name.
    var ignoreMerges = false
    var addBOS: Bool? = nil
    var clearBOS = false
    /// llama.cpp's `byte_encode`: words are mapped through GPT-2's byte-to-unicode table and merges
    /// run over bytes. When false (SentencePiece-style BPE) merges run over raw UTF-8 characters and
    /// a piece that is not a token falls back to `<0xNN>` byte tokens.
    var byteEncoded = true
    /// llama.cpp's `escape_whitespaces`: spaces become ▁ before splitting, and ▁ becomes a space again
    /// when a normal token is detokenized.
    var escapesWhitespace = false
    /// Gemma 4 (llama.cpp PR 21343): a word made only of newlines is looked up whole before merging.
    var looksUpNewlineRunsWhole = false
    /// Gemma 4 (llama.cpp PR 21500): BOS is added even when `tokenizer.ggml.add_bos_token` is false.
    var forcesBOS = false

    /// Every name llama.cpp maps that this package implements, with its llama.cpp aliases.
    /// Unknown names are an error; so are the few llama.cpp names not implemented here
    /// (kimi-k2, sarvam-moe, youtu, whitespace).
    init(name: String) throws(VocabularyError) {
        self.name = name
        let wordLlama3 = SplitPattern.wordFamily(.init(maxDigits: 3))
        let wordQwen2 = SplitPattern.wordFamily(.init(maxDigits: 1))
        let starcoder: [SplitPattern] = [.number, .gpt2]
        let poro: [SplitPattern] = [.notSentencePunctuation]
        switch name {
        case "default":
            patterns = SplitPattern.defaultPatterns
        case "llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "jina-v5-nano":
            patterns = [wordLlama3]; ignoreMerges = true; addBOS = true
        case "dbrx", "smaug-bpe":
            patterns = [wordLlama3]
        case "chatglm-bpe":
            patterns = [wordLlama3]; clearBOS = true
        case "glm4", "glm5":
            patterns = [wordLlama3]; clearBOS = true; ignoreMerges = true
        case "deepseek-llm":
            patterns = [
                .lineBreak,
                .rangesRun(SplitPattern.deepseekLetters, optionalSpace: true),
                .rangesRun(SplitPattern.deepseekPunctuation, optionalSpace: true),
                .trailingWhitespace,
                .rangesRun(SplitPattern.cjkHangul, optionalSpace: false),
                .numberRun(maxCount: nil),
            ]
        case "deepseek-coder":
            patterns = [
                .lineBreak,
                .optionalSpaceRun(.letter),
                .optionalSpaceRun(.punctuation),
                .rangesRun(SplitPattern.cjkHangul, optionalSpace: false),
                .number,
            ]
        case "falcon":
            patterns = [.punctuationRun(backquote: true), .gpt2, .threeASCIIDigits]
        case "mpt", "gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0",
             "mellum", "modern-bert", "jina-v1-en", "jina-v2-code", "roberta-bpe", "exaone4", "olmo", "jais",
             "trillion", "granite-docling":
            patterns = [.gpt2]
        case "starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b", "mellum2":
            patterns = starcoder
        case "qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "megrez", "stablelm2", "hunyuan", "solar-open",
             "grok-2", "bailingmoe", "bailingmoe2", "llada-moe":
            patterns = [wordQwen2]
        case "qwen35":
            patterns = [.wordFamily(.init(maxDigits: 1, marksJoinLetters: true))]
        case "seed-coder":
            patterns = [.wordFamily(.init(maxDigits: 1, lineBreaksAfterPunctuation: false))]
        case "ufakzeka":
            patterns = [.wordFamily(.init(maxDigits: 1, contractions: false))]
        case "minicpm5":
            patterns = [.numberRun(maxCount: 3), .wordFamily(.init(maxDigits: 0))]; ignoreMerges = true
        case "laguna":
            patterns = [.newlineRuns, wordQwen2]
        case "poro-chat", "bloom", "gpt3-finnish":
            patterns = poro
        case "viking":
            patterns = poro + [.number]
        case "tekken":
            patterns = [.caseSplit(maxDigits: 1, contractions: false)]; ignoreMerges = true; addBOS = true
        case "gpt-4o", "llama4", "kanana2", "talkie", "minimax-m2":
            patterns = [.caseSplit(maxDigits: 3, contractions: true)]
        case "chameleon":
            patterns = [.chameleonSentinel, .chameleonImage, .chameleonWhitespace, .number, .chameleonPunctuation, .gpt2]
            addBOS = true
        case "superbpe":
            // `\p{N}+` then `(?=(\d{3})+(?!\d))`, whose empty matches cut digit runs in threes from the right.
            patterns = [.numberRun(maxCount: nil)]
        case "deepseek-v3", "hunyuan-dense", "hy_v4", "joyai-llm":
            patterns = [.numberRun(maxCount: 3), .rangesRun(SplitPattern.hanKana, optionalSpace: false), .deepseekV3(singleLineBreaks: false)]
        case "spark2_5":
            patterns = [.numberRun(maxCount: 3), .rangesRun(SplitPattern.hanKana, optionalSpace: false),
                        .deepseekV3(singleLineBreaks: true), .number]
        case "jais-2":
            patterns = [.jais2]
        case "tiny_aya", "cohere2moe":
            patterns = [.digitGroupsFromRight, .caseSplit(maxDigits: 3, contractions: true, marks: true, cased: false)]
        case "afmoe":
            patterns = [.digitGroupsFromRight, .rangesRun(SplitPattern.afmoeScripts, optionalSpace: false),
                        .deepseekV3(singleLineBreaks: false)]
        case "granite-embed-multi-97m":
            patterns = [.caseSplit(maxDigits: 3, contractions: true, marks: true)]; ignoreMerges = true
        case "gemma4", "granite-embed-multi-311m":
            // SentencePiece-style BPE: only newline runs are cut out, the rest is one word.
            patterns = [.newlineRuns]
            byteEncoded = false; escapesWhitespace = true; looksUpNewlineRunsWhole = true; forcesBOS = true
        case "kimi-k2", "sarvam-moe", "youtu", "whitespace":
            throw VocabularyError.unsupportedPreTokenizer(name)
        default:
            throw VocabularyError.unknownPreTokenizer(name)
        }
        cutsDigitGroupsOfThree = name == "superbpe"
    }

    /// superbpe's zero-width digit-group split, applied after `patterns`.
    private(set) var cutsDigitGroupsOfThree = false
}

extension SplitPattern {
    /// llama.cpp's regexes for a BPE vocabulary without a `tokenizer.ggml.pre`.
    static let defaultPatterns: [SplitPattern] = [
        .punctuationRun(backquote: false), .gpt2, .numberRun(maxCount: nil), .threeASCIIDigits,
    ]
    // deepseek's literal classes, written with escapes so that no editor normalizes them.
    /// `[一-龥ࠀ-一가-퟿]`.
    static let cjkHangul = CodePointRanges("\u{4E00}-\u{9FA5}\u{800}-\u{4E00}\u{AC00}-\u{D7FF}")
    /// `[一-龥぀-ゟ゠-ヿ]` (DeepSeek-V3).
    static let hanKana = CodePointRanges("\u{4E00}-\u{9FA5}\u{3040}-\u{309F}\u{30A0}-\u{30FF}")
    /// AFMoE's CJK and South-East Asian scripts (llama.cpp's class, including its `\u{8C48}` start).
    static let afmoeScripts = CodePointRanges(
        "\u{4E00}-\u{9FFF}\u{3400}-\u{4DBF}\u{8C48}-\u{FAFF}\u{3040}-\u{309F}\u{30A0}-\u{30FF}\u{FF65}-\u{FF9F}"
            + "\u{2F00}-\u{2FDF}\u{E40}-\u{E7F}\u{E80}-\u{EFF}\u{1780}-\u{17FF}\u{1000}-\u{109F}\u{AA60}-\u{AA7F}"
            + "\u{A9E0}-\u{A9FF}\u{AC00}-\u{D7AF}\u{1100}-\u{11FF}")
    static let deepseekLetters = CodePointRanges(
        "A-Za-z\u{B5}\u{C0}-\u{D6}\u{D8}-\u{F6}\u{F8}-\u{1BA}\u{1BC}-\u{1BF}\u{1C4}-\u{293}\u{295}-\u{2AF}\u{370}-\u{373}\u{376}\u{377}\u{37B}-\u{37D}\u{37F}\u{386}\u{388}-\u{38A}\u{38C}\u{38E}-\u{3A1}\u{3A3}-\u{3F5}\u{3F7}-\u{481}\u{48A}-\u{52F}\u{531}-\u{556}\u{10A0}-\u{10C5}\u{13A0}-\u{13F5}\u{13F8}-\u{13FD}\u{1C90}-\u{1CBA}\u{1CBD}-\u{1CBF}\u{1D00}-\u{1D2B}\u{1D6B}-\u{1D77}\u{1D79}-\u{1D9A}\u{1E00}-\u{1F15}\u{1F18}-\u{1F1D}\u{1F20}-\u{1F45}\u{1F48}-\u{1F4D}\u{1F50}-\u{1F57}\u{1F59}\u{1F5B}\u{1F5D}\u{1F5F}-\u{1F7D}\u{1F80}-\u{1FB4}\u{1FB6}-\u{1FBC}\u{1FBE}\u{1FC2}-\u{1FC4}\u{1FC6}-\u{1FCC}\u{1FD0}-\u{1FD3}\u{1FD6}-\u{1FDB}\u{1FE0}-\u{1FEC}\u{1FF2}-\u{1FF4}\u{1FF6}-\u{1FFC}\u{2102}\u{2107}\u{210A}-\u{2113}\u{2115}\u{2119}-\u{211D}\u{2124}\u{2126}\u{2128}\u{212A}-\u{212D}\u{212F}-\u{2134}\u{2139}\u{213C}-\u{213F}\u{2145}-\u{2149}\u{214E}\u{2183}\u{2184}\u{2C00}-\u{2C7B}\u{2C7E}-\u{2CE4}\u{2CEB}-\u{2CEE}\u{2CF2}\u{2CF3}\u{A640}-\u{A66D}\u{A680}-\u{A69B}\u{A722}-\u{A76F}\u{A771}-\u{A787}\u{A78B}-\u{A78E}\u{AB70}-\u{ABBF}\u{FB00}-\u{FB06}\u{FB13}-\u{FB17}\u{FF21}-\u{FF3A}\u{FF41}-\u{FF5A}\u{10400}-\u{1044F}\u{104B0}-\u{104D3}\u{104D8}-\u{104FB}\u{10C80}-\u{10CB2}\u{10CC0}-\u{10CF2}\u{118A0}-\u{118DF}\u{1E900}-\u{1E943}"
    )
    static let deepseekPunctuation = CodePointRanges("!-/:-~\u{FF01}-\u{FF0F}\u{FF1A}-\u{FF5E}\u{2018}-\u{201F}\u{3000}-\u{3002}")
}

extension PreTokenizer {
    /// llama.cpp's `unicode_regex_split_custom_afmoe`: in each segment, every `\p{N}` run of n code
    /// points ends groups at `run start + n % 3` (when not 0) and every 3 after; there is no cut at the
    /// run's start, so the text before it joins its first group.
    func splitDigitGroups(_ input: ScanInput, segments: [Int32], into ends: inout [Int32]) {
        var segmentStart = 0
        for segmentEndRaw in segments {
            let end = Int(segmentEndRaw)
            var p = segmentStart
            var last = segmentStart
            while p < end {
                guard input.f(p, end).contains(.number) else { p += 1; continue }
                let runStart = p
                while p < end && input.f(p, end).contains(.number) { p += 1 }
                var cut = runStart + (p - runStart) % 3
                if cut == runStart { cut += 3 }
                while cut <= p {
                    ends.append(Int32(cut))
                    last = cut
                    cut += 3
                }
            }
            if last < end { ends.append(Int32(end)) }
            segmentStart = end
        }
    }

    /// Splits `cps` (with their `flags`) into words; returns the end index of each word, in order.
    func split(_ input: ScanInput, into ends: inout [Int32], scratch: inout [Int32]) {
        let count = input.cps.count
        ends.removeAll(keepingCapacity: true)
        guard count > 0 else { return }
        ends.append(Int32(count))
        for pattern in patterns {
            swap(&ends, &scratch)
            ends.removeAll(keepingCapacity: true)
            if case .digitGroupsFromRight = pattern {
                splitDigitGroups(input, segments: scratch, into: &ends)
                continue
            }
            var segmentStart = 0
            for segmentEndRaw in scratch {
                let segmentEnd = Int(segmentEndRaw)
                var gapStart = segmentStart
                var p = segmentStart
                while p < segmentEnd {
                    let n = pattern.match(input, p, segmentEnd)
                    if n > 0 {
                        if p > gapStart { ends.append(Int32(p)) }
                        p += n
                        ends.append(Int32(p))
                        gapStart = p
                    } else {
                        p += 1
                    }
                }
                if gapStart < segmentEnd { ends.append(Int32(segmentEnd)) }
                segmentStart = segmentEnd
            }
        }
        if cutsDigitGroupsOfThree {
            swap(&ends, &scratch)
            ends.removeAll(keepingCapacity: true)
            var segmentStart = 0
            for segmentEndRaw in scratch {
                let segmentEnd = Int(segmentEndRaw)
                // A cut before position p when the ASCII digits from p to the next non-digit number 3k, k ≥ 1.
                var p = segmentEnd - 1
                var cuts: [Int] = []
                var run = 0
                while p >= segmentStart {
                    let c = input.cps[p]
                    if c >= 0x30 && c <= 0x39 {
                        run += 1
                        if run % 3 == 0 && p > segmentStart { cuts.append(p) }
                    } else {
                        run = 0
                    }
                    p -= 1
                }
                for cut in cuts.reversed() { ends.append(Int32(cut)) }
                ends.append(Int32(segmentEnd))
                segmentStart = segmentEnd
            }
        }
    }
}
