// Transcript prompt entries carry the request's options. Apple's JSON spells them flat:
// `{"temperature":0.7,"maximumResponseTokens":256,"toolCallingMode":"disallowed","topK":41,"randomSeed":73}`.
// Greedy sampling has no key of its own there, so it is written as `"samplingMode":"greedy"`.
extension GenerationOptions: Codable {
    private enum CodingKeys: String, CodingKey {
        case temperature, maximumResponseTokens, toolCallingMode, topK, topP, randomSeed, samplingMode
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            samplingMode: nil,
            temperature: try container.decodeIfPresent(Double.self, forKey: .temperature),
            maximumResponseTokens: try container.decodeIfPresent(Int.self, forKey: .maximumResponseTokens),
            toolCallingMode: nil
        )
        if let mode = try container.decodeIfPresent(String.self, forKey: .toolCallingMode) {
            guard let value = ToolCallingMode.Value(rawValue: mode) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .toolCallingMode, in: container, debugDescription: "unknown tool calling mode '\(mode)'")
            }
            toolCallingMode = ToolCallingMode(value)
        }
        let seed = try container.decodeIfPresent(UInt64.self, forKey: .randomSeed)
        if let k = try container.decodeIfPresent(Int.self, forKey: .topK) {
            samplingMode = .random(top: k, seed: seed)
        } else if let p = try container.decodeIfPresent(Double.self, forKey: .topP) {
            samplingMode = .random(probabilityThreshold: p, seed: seed)
        } else if try container.decodeIfPresent(String.self, forKey: .samplingMode) == "greedy" {
            samplingMode = .greedy
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(temperature, forKey: .temperature)
        try container.encodeIfPresent(maximumResponseTokens, forKey: .maximumResponseTokens)
        try container.encodeIfPresent(toolCallingMode?.value.rawValue, forKey: .toolCallingMode)
        switch samplingMode?.kind {
        case .greedy: try container.encode("greedy", forKey: .samplingMode)
        case .topK(let k): try container.encode(k, forKey: .topK)
        case .nucleus(let p): try container.encode(p, forKey: .topP)
        case nil: break
        }
        try container.encodeIfPresent(samplingMode?.seed, forKey: .randomSeed)
    }
}
