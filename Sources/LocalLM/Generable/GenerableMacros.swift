/// Makes a structure or enumeration generable: adds the `Generable` conformance, its
/// `generationSchema`, `init(_:)` from generated content, `generatedContent`, and (for
/// structures) a `PartiallyGenerated` type whose properties are optional, for streaming.
@attached(extension, conformances: Generable, names: named(init(_:)), named(generatedContent))
@attached(member, names: named(generationSchema), named(PartiallyGenerated), named(generatedContent), named(init(_:)))
public macro Generable(description: String? = nil) = #externalMacro(module: "LocalLMMacros", type: "GenerableMacro")

/// Describes a property of a `@Generable` type to the model.
@attached(peer)
public macro Guide(description: String) = #externalMacro(module: "LocalLMMacros", type: "GuideMacro")

/// Describes a property of a `@Generable` type and constrains its values with guides.
@attached(peer)
public macro Guide<T>(description: String? = nil, _ guides: GenerationGuide<T>...) =
    #externalMacro(module: "LocalLMMacros", type: "GuideMacro")

/// Describes a string property of a `@Generable` type and constrains it to a regular expression.
@attached(peer)
public macro Guide<RegexOutput>(description: String? = nil, _ guides: Regex<RegexOutput>) =
    #externalMacro(module: "LocalLMMacros", type: "GuideMacro")
