import Foundation
import LocalLM
import LocalLMGrammar
import LocalLMTestSupport
import Testing

/// `@Guide` bounds on Double, Float and Decimal properties reach the schema as decimal
/// `minimum`/`maximum` and are enforced while decoding.
@Generable
struct GaugeReading {
    @Guide(description: "Level between 0.5 and 2.25", .range(0.5...2.25))
    var level: Double
    @Guide(description: "A small negative offset", .minimum(-1.5), .maximum(-0.25))
    var offset: Float
    @Guide(description: "Price in euros", .range(0.0...5.0))
    var price: Decimal
    @Guide(description: "Ratio", .minimum(0.1))
    var ratio: Float
}

@Suite("@Guide number bounds", .serialized)
struct GenerableNumberBoundsTests {
    static var schemaText: String { GaugeReading.generationSchema.jsonSchemaString }

    @Test func boundsAreWrittenAsShortDecimals() throws {
        let schema = try JSONValue(parsing: Self.schemaText)
        let properties = try #require(schema["properties"])
        func bounds(_ name: String) -> [String] {
            ["minimum", "maximum"].map { key in properties[name]?[key].map(\.compactText) ?? "-" }
        }
        #expect(bounds("level") == ["0.5", "2.25"])
        #expect(bounds("offset") == ["-1.5", "-0.25"])
        #expect(bounds("price") == ["0", "5"])
        // The Float 0.1 is written as 0.1, not as its binary value 0.10000000149011612.
        #expect(bounds("ratio") == ["0.1", "-"])
    }

    @Test func theSchemaGrammarEnforcesTheBounds() throws {
        let grammar = try CompiledGrammar(jsonSchema: Self.schemaText)
        func accepts(_ level: String, _ offset: String, _ price: String, _ ratio: String = "1") -> Bool {
            var m = GrammarMatcher(grammar)
            let text = #"{"level":\#(level),"offset":\#(offset),"price":\#(price),"ratio":\#(ratio)}"#
            return m.accept(bytes: Array(text.utf8)) && m.canTerminate
        }
        #expect(accepts("0.5", "-0.25", "5"))
        #expect(accepts("2.25", "-1.5", "0", "0.1"))
        #expect(accepts("1.125", "-1", "4.99", "123.5"))
        #expect(!accepts("0.49", "-1", "1"))
        #expect(!accepts("2.2500001", "-1", "1"))
        #expect(!accepts("1", "-0.24", "1"))
        #expect(!accepts("1", "-1.51", "1"))
        #expect(!accepts("1", "-1", "5.01"))
        #expect(!accepts("1", "-1", "-0.5"))
        #expect(!accepts("1", "-1", "1", "0.0999"))
    }

    /// SmolLM2 decodes a GaugeReading through a session: every bound holds in the decoded value.
    @Test func smolLM2ValuesStayInBounds() async throws {
        _ = try TestModels.require(TestModels.smolLM2)
        let session = LanguageModelSession(instructions: "You answer with gauge readings.")
        let options = GenerationOptions(samplingMode: .random(top: 50, seed: 11), temperature: 1.0, maximumResponseTokens: 48)
        let m = try await session.respond(to: "Give a gauge reading.", generating: GaugeReading.self, options: options).content
        #expect((0.5...2.25).contains(m.level), "\(m.level)")
        #expect((Float(-1.5)...Float(-0.25)).contains(m.offset), "\(m.offset)")
        #expect(m.price >= 0 && m.price <= 5, "\(m.price)")
        #expect(m.ratio >= Float(0.1), "\(m.ratio)")
        print("GaugeReading from SmolLM2:", m.level, m.offset, m.price, m.ratio)
    }
}
