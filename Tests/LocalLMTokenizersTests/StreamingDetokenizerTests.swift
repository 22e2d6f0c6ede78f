import Foundation
import LocalLMGGUF
import LocalLMTestSupport
import Testing

@testable import LocalLMTokenizers

@Suite struct StreamingDetokenizerTests {
    /// Characters that both models split across several tokens: Gemma 3 falls back to `<0xNN>` byte
    /// tokens for code points missing from its vocabulary; SmolLM2's byte-level BPE splits rare CJK.
    static let texts = ["\u{1FBF0}\u{1FBF1} 𓀀𓀁 𝕏 \u{E000}", "漢字とかなを混ぜた文章 🦙🦙 〄〠", "a\u{10FFFF}b"]

    @Test(arguments: ModelCorpusTests.Model.allCases)
    func neverYieldsReplacementMidStream(_ model: ModelCorpusTests.Model) throws {
        let tokenizer = try ModelCorpusTests.tokenizer(model)
        var sawSplitCharacter = false
        for text in Self.texts {
            let ids = tokenizer.encode(text)
            var stream = StreamingDetokenizer(tokenizer: tokenizer)
            var output = ""
            for id in ids {
                let piece = tokenizer.tokenBytes(id)
                if String(validating: piece, as: UTF8.self) == nil { sawSplitCharacter = true }
                let chunk = stream.append(id)
                #expect(!chunk.unicodeScalars.contains("\u{FFFD}"), "\(model): chunk \(chunk.debugDescription) of \(text.debugDescription)")
                output += chunk
            }
            output += stream.finish()
            #expect(output == text)
        }
        #expect(sawSplitCharacter, "the texts should include a character split across tokens")
    }

    @Test func holdsBackUnfinishedSequences() {
        #expect(StreamingDetokenizer.completePrefixLength([0x61, 0xE6]) == 1)
        #expect(StreamingDetokenizer.completePrefixLength([0x61, 0xE6, 0xBC]) == 1)
        #expect(StreamingDetokenizer.completePrefixLength([0x61, 0xE6, 0xBC, 0xA2]) == 4)
        #expect(StreamingDetokenizer.completePrefixLength([0xF0, 0x9F, 0xA6]) == 0)
        // A stray continuation byte can never complete: it is passed on (to become U+FFFD).
        #expect(StreamingDetokenizer.completePrefixLength([0x61, 0x80]) == 2)
    }

    @Test func finishFlushesAnUnfinishedCharacter() throws {
        let tokenizer = try ModelCorpusTests.tokenizer(.gemma3)
        let ids = tokenizer.encode("\u{1FBF0}")
        var stream = StreamingDetokenizer(tokenizer: tokenizer)
        #expect(ids.count > 1)
        for id in ids.dropLast() { #expect(stream.append(id) == "") }
        #expect(stream.finish() == "\u{FFFD}")
    }
}
