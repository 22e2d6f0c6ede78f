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

    /// Every name llama.cpp maps that this package implements, with its llama.cpp aliases.
    /// Unknown names are an error; so are the few llama.cpp names not implemented here
    /// (kimi-k2, afmoe, jais-2, tiny_aya, granite-embed-multi-*, gemma4, sarvam-moe, youtu,
    /// deepseek-v3 and its relatives, whitespace, hybriddna).
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
        case "kimi-k2", "afmoe", "jais-2", "tiny_aya", "cohere2moe", "granite-embed-multi-97m",
             "granite-embed-multi-311m", "gemma4", "sarvam-moe", "youtu", "deepseek-v3", "spark2_5",
             "hunyuan-dense", "hy_v4", "joyai-llm", "whitespace":
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
    /// `[一-龥ࠀ-一가-퟿]` (deepseek).
    static let cjkHangul = CodePointRanges("一-龥ࠀ-一가-퟿")
    static let deepseekLetters = CodePointRanges(
        "A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-ώᾀ-ᾴᾶ-ᾼιῂ-ῄῆ-ῌῐ-ΐῖ-Ίῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤΩℨK-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃")
    static let deepseekPunctuation = CodePointRanges("!-/:-~！-／：-～‘-‟　-。")
}

extension PreTokenizer {
    /// Splits `cps` (with their `flags`) into words; returns the end index of each word, in order.
    func split(_ input: ScanInput, into ends: inout [Int32], scratch: inout [Int32]) {
        let count = input.cps.count
        ends.removeAll(keepingCapacity: true)
        guard count > 0 else { return }
        ends.append(Int32(count))
        for pattern in patterns {
            swap(&ends, &scratch)
            ends.removeAll(keepingCapacity: true)
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
