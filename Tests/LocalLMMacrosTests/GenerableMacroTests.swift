import LocalLMMacros
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosTestSupport
import XCTest

// Expansion tests use XCTest because `assertMacroExpansion` from SwiftSyntaxMacrosTestSupport
// reports through XCTest. What the expansions *do* is tested in Tests/LocalLMTests/Generable*.swift.

private let macros: [String: MacroSpec] = [
    "Generable": MacroSpec(type: GenerableMacro.self, conformances: ["Generable"]),
    "Guide": MacroSpec(type: GuideMacro.self),
]

final class GenerableMacroTests: XCTestCase {
    func testStructWithGuidesAndOptional() {
        assertMacroExpansion(
            """
            @Generable(description: "A recipe search")
            public struct Arguments {
                @Guide(description: "The type of bread", /[a-z]+/)
                public var searchTerm: String
                @Guide(description: "How many", .range(1...6))
                var limit: Int?
                var tags: [String]
                var computed: Int { 1 }
                let constant = 3
                static var shared = 0
            }
            """,
            expandedSource: """
            public struct Arguments {
                public var searchTerm: String
                var limit: Int?
                var tags: [String]
                var computed: Int { 1 }
                let constant = 3
                static var shared = 0

                nonisolated public static var generationSchema: GenerationSchema {
                    GenerationSchema(
                        type: Self.self,
                        description: "A recipe search",
                        properties: [
                            GenerationSchema.Property(name: "searchTerm", description: "The type of bread", type: String.self, guides: [/[a-z]+/]),
                            GenerationSchema.Property(name: "limit", description: "How many", type: Int?.self, guides: [.range(1 ... 6)]),
                            GenerationSchema.Property(name: "tags", type: [String].self),
                        ]
                    )
                }

                nonisolated public struct PartiallyGenerated: Identifiable, ConvertibleFromGeneratedContent {
                    public var id: GenerationID
                    public var searchTerm: String.PartiallyGenerated?
                    public var limit: Int.PartiallyGenerated?
                    public var tags: Array<String>.PartiallyGenerated?
                    nonisolated public init(_ content: GeneratedContent) throws {
                        self.id = content.id ?? GenerationID()
                        self.searchTerm = try content._partialValue(forProperty: "searchTerm")
                        self.limit = try content._partialValue(forProperty: "limit")
                        self.tags = try content._partialValue(forProperty: "tags")
                    }
                }
            }

            extension Arguments: Generable {
                nonisolated public init(_ content: GeneratedContent) throws {
                    self.searchTerm = try content.value(forProperty: "searchTerm")
                    self.limit = try content.value(forProperty: "limit")
                    self.tags = try content.value(forProperty: "tags")
                }
                nonisolated public var generatedContent: GeneratedContent {
                    var properties: [(String, any ConvertibleToGeneratedContent)] = []
                    properties.append(("searchTerm", self.searchTerm))
                    if let value = self.limit {
                        properties.append(("limit", value))
                    }
                    properties.append(("tags", self.tags))
                    return GeneratedContent(properties: properties, uniquingKeysWith: { first, _ in
                            first
                        })
                }
            }
            """,
            macroSpecs: macros
        )
    }

    /// FoundationModels allows a struct with nothing to generate (a tool that takes no arguments).
    func testStructWithNoStoredProperties() {
        assertMacroExpansion(
            """
            @Generable
            struct Arguments {}
            """,
            expandedSource: """
            struct Arguments {

                nonisolated static var generationSchema: GenerationSchema {
                    GenerationSchema(
                        type: Self.self,
                        description: nil,
                        properties: [
                        ]
                    )
                }

                nonisolated struct PartiallyGenerated: Identifiable, ConvertibleFromGeneratedContent {
                    var id: GenerationID
                    nonisolated init(_ content: GeneratedContent) throws {
                        self.id = content.id ?? GenerationID()
                    }
                }
            }

            extension Arguments: Generable {
                nonisolated init(_ content: GeneratedContent) throws {

                }
                nonisolated var generatedContent: GeneratedContent {
                    let properties: [(String, any ConvertibleToGeneratedContent)] = []

                    return GeneratedContent(properties: properties, uniquingKeysWith: { first, _ in
                            first
                        })
                }
            }
            """,
            macroSpecs: macros
        )
    }

    func testPlainEnum() {
        assertMacroExpansion(
            """
            @Generable
            enum Genre {
                case jazz, rock
                case `default`
            }
            """,
            expandedSource: """
            enum Genre {
                case jazz, rock
                case `default`

                nonisolated static var generationSchema: GenerationSchema {
                    GenerationSchema(type: Self.self, description: nil, anyOf: ["jazz", "rock", "default"])
                }
            }

            extension Genre: Generable {
                nonisolated init(_ content: GeneratedContent) throws {
                    let name = try content.value(String.self)
                    switch name {
                    case "jazz":
                        self = .jazz
                    case "rock":
                        self = .rock
                    case "default":
                        self = .`default`
                    default:
                        throw GeneratedContentError.unknownCase(name, type: "Genre")
                    }
                }
                nonisolated var generatedContent: GeneratedContent {
                    switch self {
                    case .jazz:
                        GeneratedContent(kind: .string("jazz"))
                    case .rock:
                        GeneratedContent(kind: .string("rock"))
                    case .`default`:
                        GeneratedContent(kind: .string("default"))
                    }
                }
            }
            """,
            macroSpecs: macros
        )
    }

    func testEnumWithAssociatedValues() {
        assertMacroExpansion(
            """
            @Generable
            enum Shape {
                case none
                case circle(radius: Double)
                case point(Int, Int?)
            }
            """,
            expandedSource: """
            enum Shape {
                case none
                case circle(radius: Double)
                case point(Int, Int?)

                nonisolated static var generationSchema: GenerationSchema {
                    GenerationSchema(
                        type: Self.self,
                        description: nil,
                        _cases: [
                            ("none", nil),
                            ("circle", [GenerationSchema.Property(name: "radius", type: Double.self)]),
                            ("point", [GenerationSchema.Property(name: "_0", type: Int.self), GenerationSchema.Property(name: "_1", type: Int?.self)]),
                        ]
                    )
                }
            }

            extension Shape: Generable {
                nonisolated init(_ content: GeneratedContent) throws {
                    if case .string(let name) = content.kind {
                        switch name {
                        case "none":
                            self = .none
                        default:
                            throw GeneratedContentError.unknownCase(name, type: "Shape")
                        }
                        return
                    }
                    let properties = try content.properties()
                    if let payload = properties["circle"] {
                        self = .circle(radius: try payload.value(forProperty: "radius"))
                        return
                    }
                    if let payload = properties["point"] {
                        self = .point(try payload.value(forProperty: "_0"), try payload.value(forProperty: "_1"))
                        return
                    }
                    throw GeneratedContentError.unknownCase(content.jsonString, type: "Shape")
                }
                nonisolated var generatedContent: GeneratedContent {
                    switch self {
                    case .none:
                        return GeneratedContent(kind: .string("none"))
                    case .circle(let value0):
                        var values: [(String, any ConvertibleToGeneratedContent)] = []
                        values.append(("radius", value0))
                        return GeneratedContent(properties: ["circle": GeneratedContent(properties: values, uniquingKeysWith: { first, _ in
                                            first
                                        })])
                    case .point(let value0, let value1):
                        var values: [(String, any ConvertibleToGeneratedContent)] = []
                        values.append(("_0", value0))
                        if let value = value1 {
                            values.append(("_1", value))
                        }
                        return GeneratedContent(properties: ["point": GeneratedContent(properties: values, uniquingKeysWith: { first, _ in
                                            first
                                        })])
                    }
                }
            }
            """,
            macroSpecs: macros
        )
    }

    func testDeclarationsThatCannotBeGenerable() {
        let cases: [(source: String, message: String, line: Int, column: Int)] = [
            ("@Generable\nclass Model {\n    var x: Int = 0\n}", "@Generable applies to a struct or an enum, not to a class", 2, 1),
            ("@Generable\nactor Model {\n    var x: Int = 0\n}", "@Generable applies to a struct or an enum, not to a actor", 2, 1),
            ("@Generable\nprotocol Model {\n}", "@Generable applies to a struct or an enum, not to a protocol", 2, 1),
            ("@Generable\nenum Model {\n}", "@Generable enum 'Model' has no cases to generate", 2, 6),
            (
                "@Generable\nstruct Model {\n    var x = 1\n}",
                "property 'x' of a @Generable type needs an explicit type annotation", 3, 9
            ),
            (
                "@Generable\nstruct Model {\n    var x: [String: Int]\n}",
                "a dictionary cannot be generated; use an array of a @Generable struct", 3, 12
            ),
            ("@Generable\nstruct Model {\n    var x: (Int, Int)\n}", "a tuple cannot be generated; use a @Generable struct", 3, 12),
            ("@Generable\nstruct Model {\n    var x: () -> Void\n}", "a function type cannot be generated", 3, 12),
            (
                "@Generable\nstruct Model {\n    var x: any Sendable\n}",
                "an existential or opaque type cannot be generated; use a concrete @Generable type", 3, 12
            ),
            ("@Generable\nenum Model {\n    case a(() -> Void)\n}", "a function type cannot be generated", 3, 12),
        ]
        for testCase in cases {
            let expanded = testCase.source
                .replacingOccurrences(of: "@Generable\n", with: "")
            assertMacroExpansion(
                testCase.source,
                expandedSource: expanded,
                diagnostics: [DiagnosticSpec(message: testCase.message, line: testCase.line, column: testCase.column)],
                macroSpecs: macros
            )
        }
    }

    func testGuideExpandsToNothing() {
        assertMacroExpansion(
            """
            struct S {
                @Guide(description: "x", .range(1...2))
                var a: Int
            }
            """,
            expandedSource: """
            struct S {
                var a: Int
            }
            """,
            macroSpecs: macros
        )
    }
}
