import Testing

@testable import LocalLMTokenizers

/// One tokenizer shared by concurrent tasks gives every task the same ids as a lone call.
@Suite struct TokenizerConcurrencyTests {
    @Test(arguments: ModelCorpusTests.Model.allCases)
    func concurrentEncodesAgree(_ model: ModelCorpusTests.Model) async throws {
        let tokenizer = try ModelCorpusTests.tokenizer(model)
        let corpus = try ModelCorpusTests.corpus()
        let expected = corpus.map { tokenizer.encode($0) }
        let results = await withTaskGroup(of: [[Int32]].self) { group in
            for _ in 0..<4 {
                group.addTask { corpus.map { tokenizer.encode($0) } }
            }
            var all: [[[Int32]]] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 4)
        for result in results { #expect(result == expected) }
    }
}
