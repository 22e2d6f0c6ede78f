import LocalLMRuntime

extension ModelSequence {
    /// Keeps the longest cached prefix of `tokens`, leaving at least one token to evaluate (for its
    /// logits), and returns its length: the prefix reuse of every prefill (requests and prewarming).
    package func reusePrefix(of tokens: [Int]) throws(RuntimeError) -> Int {
        var common = 0
        let cached = self.tokens
        while common < min(cached.count, tokens.count) && cached[common] == tokens[common] { common += 1 }
        if common == tokens.count { common = max(0, common - 1) }
        try truncate(to: common)
        return common
    }
}
