/// A type that the model can generate, and that the session can decode from the model's output.
///
/// Conform with the `@Generable` macro, which writes the schema, the conversions and a
/// `PartiallyGenerated` type for streaming. The shape follows Apple's FoundationModels.
public protocol Generable: ConvertibleFromGeneratedContent, ConvertibleToGeneratedContent {
    /// The type the session yields while the value is still being generated. Macro-made types
    /// get a struct whose properties are all optional; scalars use themselves.
    associatedtype PartiallyGenerated: ConvertibleFromGeneratedContent = Self

    /// The schema the model's output is constrained to.
    static var generationSchema: GenerationSchema { get }
}

extension Generable {
    /// This value as its partially generated counterpart (itself when the two types coincide).
    public func asPartiallyGenerated() -> PartiallyGenerated {
        if let same = self as? PartiallyGenerated { return same }
        do {
            return try PartiallyGenerated(generatedContent)
        } catch {
            // A complete value always converts to its partial form; failing here means a
            // hand-written conformance disagrees with itself, not that input was bad.
            preconditionFailure("\(Self.self).PartiallyGenerated cannot represent \(Self.self): \(error)")
        }
    }
}
