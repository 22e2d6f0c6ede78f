import Foundation
import LocalLM
import Testing

@Suite("GenerationOptions")
struct GenerationOptionsTests {
    @Test func defaultsAreNil() {
        let options = GenerationOptions()
        #expect(options.samplingMode == nil && options.temperature == nil && options.maximumResponseTokens == nil)
        #expect(options.toolCallingMode == nil)
    }

    @Test func appleInitializersAndSettableProperties() {
        var options = GenerationOptions(samplingMode: .random(probabilityThreshold: 0.9, seed: 42), temperature: 0.7)
        options.maximumResponseTokens = 64
        options.temperature = 0.2
        #expect(options.samplingMode?.kind == .nucleus(0.9))
        #expect(options.samplingMode?.seed == 42)
        #expect(options.maximumResponseTokens == 64)
        let tools = GenerationOptions(toolCallingMode: .required)
        #expect(tools.toolCallingMode == .required)
        #expect(GenerationOptions.ToolCallingMode.disallowed != .allowed)
        #expect(GenerationOptions.SamplingMode.greedy.kind == .greedy)
        #expect(GenerationOptions.SamplingMode.random(top: 5).kind == .topK(5))
    }

    @available(*, deprecated)
    @Test func deprecatedSamplingAliasStillWorks() {
        var options = GenerationOptions(sampling: .greedy, temperature: 0.1)
        #expect(options.samplingMode == .greedy)
        options.sampling = .random(top: 3, seed: 1)
        #expect(options.samplingMode == .random(top: 3, seed: 1))
    }

    @Test(arguments: [
        GenerationOptions(),
        GenerationOptions(samplingMode: .greedy),
        GenerationOptions(samplingMode: .random(top: 40, seed: 3), temperature: 0.8, maximumResponseTokens: 12),
        GenerationOptions(samplingMode: .random(probabilityThreshold: 0.5), toolCallingMode: .disallowed),
    ])
    func codableRoundTrip(options: GenerationOptions) throws {
        let data = try JSONEncoder().encode(options)
        #expect(try JSONDecoder().decode(GenerationOptions.self, from: data) == options)
    }
}
