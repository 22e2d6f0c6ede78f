import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Generable`: the schema and the `PartiallyGenerated` type go inside the type (members);
/// the conformance, `init(_:)` and `generatedContent` go in an extension, so the type keeps
/// its implicit memberwise initializer.
public struct GenerableMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        // Diagnostics are reported here only, so that each problem is reported once.
        guard let generable = GenerableDeclaration.read(declaration, attribute: node, diagnose: context.diagnose) else {
            return []
        }
        var members = [DeclSyntax(stringLiteral: schemaDeclaration(generable))]
        if case .structure(let properties) = generable.shape {
            members.append(DeclSyntax(stringLiteral: partiallyGeneratedDeclaration(generable, properties)))
        }
        return members
    }

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard let generable = GenerableDeclaration.read(declaration, attribute: node, diagnose: { _ in }) else {
            return []
        }
        // `protocols` is empty when the type already states the conformance itself.
        let conformance = protocols.isEmpty ? "" : ": Generable"
        let body: String
        switch generable.shape {
        case .structure(let properties): body = structureConversions(generable, properties)
        case .stringEnumeration(let names): body = stringEnumerationConversions(generable, names)
        case .taggedEnumeration(let cases): body = taggedEnumerationConversions(generable, cases)
        }
        let source = "extension \(type.trimmedDescription)\(conformance) {\n\(body)\n}"
        guard let extensionDecl = DeclSyntax(stringLiteral: source).as(ExtensionDeclSyntax.self) else { return [] }
        return [extensionDecl]
    }

    // MARK: Schema

    private static func schemaDeclaration(_ generable: GenerableDeclaration) -> String {
        let access = generable.accessPrefix
        let description = generable.description ?? "nil"
        var lines = ["nonisolated \(access)static var generationSchema: GenerationSchema {"]
        switch generable.shape {
        case .structure(let properties):
            lines.append("    GenerationSchema(")
            lines.append("        type: Self.self,")
            lines.append("        description: \(description),")
            if let representNil = generable.representNil {
                lines.append("        representNilExplicitlyInGeneratedContent: \(representNil),")
            }
            lines.append("        properties: [")
            lines += properties.map { "            " + propertySchema($0) + "," }
            lines.append("        ]")
            lines.append("    )")
        case .stringEnumeration(let names):
            let choices = names.map(quoted).joined(separator: ", ")
            lines.append("    GenerationSchema(type: Self.self, description: \(description), anyOf: [\(choices)])")
        case .taggedEnumeration(let cases):
            lines.append("    GenerationSchema(")
            lines.append("        type: Self.self,")
            lines.append("        description: \(description),")
            lines.append("        _cases: [")
            for enumCase in cases {
                guard let values = enumCase.values else {
                    lines.append("            (\(quoted(enumCase.name)), nil),")
                    continue
                }
                let properties = values.map { value in
                    "GenerationSchema.Property(name: \(quoted(value.key)), type: \(value.type.trimmedDescription).self)"
                }
                lines.append("            (\(quoted(enumCase.name)), [\(properties.joined(separator: ", "))]),")
            }
            lines.append("        ]")
            lines.append("    )")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    private static func propertySchema(_ property: GenerableDeclaration.StoredProperty) -> String {
        var arguments = ["name: \(quoted(property.name))"]
        if let description = property.description { arguments.append("description: \(description)") }
        arguments.append("type: \(property.type.trimmedDescription).self")
        if let regex = property.regex {
            arguments.append("guides: [\(regex.trimmedDescription)]")
        } else if !property.guides.isEmpty {
            arguments.append("guides: [\(property.guides.map(\.trimmedDescription).joined(separator: ", "))]")
        }
        return "GenerationSchema.Property(\(arguments.joined(separator: ", ")))"
    }

    // MARK: Structures

    private static func partiallyGeneratedDeclaration(
        _ generable: GenerableDeclaration,
        _ properties: [GenerableDeclaration.StoredProperty]
    ) -> String {
        let access = generable.accessPrefix
        // A type with its own `id` keeps it; the others get a generation identity for lists.
        let hasOwnID = properties.contains { $0.name == "id" }
        let conformances = hasOwnID ? "ConvertibleFromGeneratedContent" : "Identifiable, ConvertibleFromGeneratedContent"
        var lines: [String] = []
        if !hasOwnID { lines.append("    \(access)var id: GenerationID") }
        for property in properties {
            lines.append("    \(access)var \(property.identifier): \(partialType(property.wrappedType))?")
        }
        var assignments: [String] = []
        if !hasOwnID { assignments.append("        self.id = content.id ?? GenerationID()") }
        for property in properties {
            assignments.append("        self.\(property.identifier) = try content._partialValue(forProperty: \(quoted(property.name)))")
        }
        return """
        nonisolated \(access)struct PartiallyGenerated: \(conformances) {
        \(lines.joined(separator: "\n"))
            nonisolated \(access)init(_ content: GeneratedContent) throws {
        \(assignments.joined(separator: "\n"))
            }
        }
        """
    }

    /// `T.PartiallyGenerated`, with array sugar spelled out so that the member lookup parses.
    private static func partialType(_ type: TypeSyntax) -> String {
        if let array = type.as(ArrayTypeSyntax.self) {
            return "Array<\(array.element.trimmedDescription)>.PartiallyGenerated"
        }
        return "\(type.trimmedDescription).PartiallyGenerated"
    }

    private static func structureConversions(
        _ generable: GenerableDeclaration,
        _ properties: [GenerableDeclaration.StoredProperty]
    ) -> String {
        let access = generable.accessPrefix
        let assignments = properties.map {
            "        self.\($0.identifier) = try content.value(forProperty: \(quoted($0.name)))"
        }
        // With `representNilExplicitlyInGeneratedContent: true`, nil is written as null.
        let explicitNil = generable.representNil == "true"
        let appends = properties.map { property -> String in
            property.isOptional && !explicitNil
                ? "        if let value = self.\(property.identifier) { properties.append((\(quoted(property.name)), value)) }"
                : "        properties.append((\(quoted(property.name)), self.\(property.identifier)))"
        }
        return """
            nonisolated \(access)init(_ content: GeneratedContent) throws {
        \(assignments.joined(separator: "\n"))
            }
            nonisolated \(access)var generatedContent: GeneratedContent {
                \(properties.isEmpty ? "let" : "var") properties: [(String, any ConvertibleToGeneratedContent)] = []
        \(appends.joined(separator: "\n"))
                return GeneratedContent(properties: properties, uniquingKeysWith: { first, _ in first })
            }
        """
    }

    // MARK: Enumerations

    private static func stringEnumerationConversions(_ generable: GenerableDeclaration, _ names: [String]) -> String {
        guard case .stringEnumeration = generable.shape else { return "" }
        let access = generable.accessPrefix
        let cases = caseIdentifiers(generable)
        let decodes = cases.map { "        case \(quoted($0.name)): self = .\($0.identifier)" }
        let encodes = cases.map { "        case .\($0.identifier): GeneratedContent(kind: .string(\(quoted($0.name))))" }
        return """
            nonisolated \(access)init(_ content: GeneratedContent) throws {
                let name = try content.value(String.self)
                switch name {
        \(decodes.joined(separator: "\n"))
                default: throw GeneratedContentError.unknownCase(name, type: \(quoted(generable.typeName)))
                }
            }
            nonisolated \(access)var generatedContent: GeneratedContent {
                switch self {
        \(encodes.joined(separator: "\n"))
                }
            }
        """
    }

    private static func caseIdentifiers(_ generable: GenerableDeclaration) -> [(name: String, identifier: String)] {
        switch generable.shape {
        case .stringEnumeration(let names): names.map { ($0, identifier(for: $0)) }
        case .taggedEnumeration(let cases): cases.map { ($0.name, $0.identifier) }
        case .structure: []
        }
    }

    /// Swift keywords need backticks when used as case names.
    private static func identifier(for name: String) -> String {
        let keywords: Set<String> = ["default", "case", "class", "struct", "enum", "func", "var", "let", "in", "is",
                                     "as", "for", "while", "if", "else", "switch", "return", "import", "public",
                                     "private", "internal", "static", "self", "Self", "true", "false", "nil"]
        return keywords.contains(name) ? "`\(name)`" : name
    }

    private static func taggedEnumerationConversions(
        _ generable: GenerableDeclaration,
        _ cases: [GenerableDeclaration.EnumCase]
    ) -> String {
        let access = generable.accessPrefix
        let typeName = quoted(generable.typeName)
        let plain = cases.filter { $0.values == nil }
        let payload = cases.filter { $0.values != nil }
        var decode: [String] = []
        decode.append("        if case .string(let name) = content.kind {")
        decode.append("            switch name {")
        for enumCase in plain {
            decode.append("            case \(quoted(enumCase.name)): self = .\(enumCase.identifier)")
        }
        decode.append("            default: throw GeneratedContentError.unknownCase(name, type: \(typeName))")
        decode.append("            }")
        decode.append("            return")
        decode.append("        }")
        decode.append("        let properties = try content.properties()")
        for enumCase in payload {
            let values = enumCase.values ?? []
            let arguments = values.map { value in
                let read = "try payload.value(forProperty: \(quoted(value.key)))"
                return value.label.map { "\($0): \(read)" } ?? read
            }
            decode.append("        if let payload = properties[\(quoted(enumCase.name))] {")
            decode.append("            self = .\(enumCase.identifier)(\(arguments.joined(separator: ", ")))")
            decode.append("            return")
            decode.append("        }")
        }
        decode.append("        throw GeneratedContentError.unknownCase(content.jsonString, type: \(typeName))")

        var encode: [String] = []
        for enumCase in cases {
            guard let values = enumCase.values else {
                encode.append("        case .\(enumCase.identifier): return GeneratedContent(kind: .string(\(quoted(enumCase.name))))")
                continue
            }
            let bindings = values.indices.map { "let value\($0)" }.joined(separator: ", ")
            encode.append("        case .\(enumCase.identifier)(\(bindings)):")
            encode.append("            var values: [(String, any ConvertibleToGeneratedContent)] = []")
            for (index, value) in values.enumerated() {
                encode.append(value.isOptional
                    ? "            if let value = value\(index) { values.append((\(quoted(value.key)), value)) }"
                    : "            values.append((\(quoted(value.key)), value\(index)))")
            }
            encode.append("            return GeneratedContent(properties: [\(quoted(enumCase.name)): GeneratedContent(properties: values, uniquingKeysWith: { first, _ in first })])")
        }
        return """
            nonisolated \(access)init(_ content: GeneratedContent) throws {
        \(decode.joined(separator: "\n"))
            }
            nonisolated \(access)var generatedContent: GeneratedContent {
                switch self {
        \(encode.joined(separator: "\n"))
                }
            }
        """
    }

    /// A Swift identifier as a string literal (identifiers hold no quotes or backslashes).
    private static func quoted(_ text: String) -> String {
        "\"\(text)\""
    }
}
