import SwiftDiagnostics
import SwiftSyntax

/// What `@Generable` needs to know about the declaration it is attached to, read once.
struct GenerableDeclaration {
    enum Shape {
        case structure([StoredProperty])
        /// Plain cases only: a string choice.
        case stringEnumeration([String])
        /// Some cases carry values: a tagged structure per case.
        case taggedEnumeration([EnumCase])
    }

    struct StoredProperty {
        var name: String
        /// The name as written in Swift, backticks kept (`default`).
        var identifier: String
        var type: TypeSyntax
        var isOptional: Bool
        /// The type with `?` removed, for optional properties.
        var wrappedType: TypeSyntax
        var description: String?
        var guides: [ExprSyntax]
        var regex: ExprSyntax?
    }

    struct EnumCase {
        var name: String
        var identifier: String
        /// `nil` for a plain case.
        var values: [AssociatedValue]?
    }

    struct AssociatedValue {
        var label: String?
        var key: String
        var type: TypeSyntax
        var isOptional: Bool
        var wrappedType: TypeSyntax
    }

    let typeName: String
    /// `public `, `package ` or empty: generated members match the type's visibility.
    let accessPrefix: String
    let description: String?
    /// The `representNilExplicitlyInGeneratedContent:` argument as written (`nil` when absent).
    var representNil: String? = nil
    let shape: Shape

    /// Reads the declaration; on failure the diagnostics are already emitted and `nil` is returned.
    static func read(
        _ declaration: some DeclGroupSyntax,
        attribute: AttributeSyntax,
        diagnose: (Diagnostic) -> Void
    ) -> GenerableDeclaration? {
        let description = Self.argument(named: "description", in: attribute)
        if let structure = declaration.as(StructDeclSyntax.self) {
            var properties: [StoredProperty] = []
            var failed = false
            for member in structure.memberBlock.members {
                guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
                guard let read = readProperties(variable, diagnose: diagnose) else {
                    failed = true
                    continue
                }
                properties += read
            }
            // No stored properties is allowed, as in FoundationModels: `@Generable struct Arguments {}`
            // is how a tool says it takes none; its schema is an object with no properties.
            if failed { return nil }
            return GenerableDeclaration(
                typeName: structure.name.text,
                accessPrefix: accessPrefix(structure.modifiers),
                description: description,
                representNil: Self.argument(named: "representNilExplicitlyInGeneratedContent", in: attribute),
                shape: .structure(properties)
            )
        }
        if let enumeration = declaration.as(EnumDeclSyntax.self) {
            var cases: [EnumCase] = []
            var failed = false
            for member in enumeration.memberBlock.members {
                guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
                for element in caseDecl.elements {
                    let identifier = element.name.text
                    let name = identifier.trimmingBackticks
                    guard let parameters = element.parameterClause?.parameters else {
                        cases.append(EnumCase(name: name, identifier: identifier, values: nil))
                        continue
                    }
                    var values: [AssociatedValue] = []
                    for (index, parameter) in parameters.enumerated() {
                        if let problem = unsupportedType(parameter.type) {
                            diagnose(Diagnostic(node: parameter.type, message: GenerableDiagnostic.unsupportedType(problem)))
                            failed = true
                        }
                        let label = parameter.firstName.map { $0.text.trimmingBackticks }.flatMap { $0 == "_" ? nil : $0 }
                        let (isOptional, wrapped) = optionalInfo(parameter.type)
                        values.append(AssociatedValue(
                            label: label, key: label ?? "_\(index)", type: parameter.type.trimmed,
                            isOptional: isOptional, wrappedType: wrapped
                        ))
                    }
                    cases.append(EnumCase(name: name, identifier: identifier, values: values))
                }
            }
            if failed { return nil }
            if cases.isEmpty {
                diagnose(Diagnostic(node: enumeration.name, message: GenerableDiagnostic.noCases(enumeration.name.text)))
                return nil
            }
            let shape: Shape = cases.allSatisfy { $0.values == nil }
                ? .stringEnumeration(cases.map(\.name))
                : .taggedEnumeration(cases)
            return GenerableDeclaration(
                typeName: enumeration.name.text,
                accessPrefix: accessPrefix(enumeration.modifiers),
                description: description,
                shape: shape
            )
        }
        let kind: String
        let node: Syntax
        if let decl = declaration.as(ClassDeclSyntax.self) { (kind, node) = ("class", Syntax(decl.classKeyword)) }
        else if let decl = declaration.as(ActorDeclSyntax.self) { (kind, node) = ("actor", Syntax(decl.actorKeyword)) }
        else if let decl = declaration.as(ProtocolDeclSyntax.self) { (kind, node) = ("protocol", Syntax(decl.protocolKeyword)) }
        else if let decl = declaration.as(ExtensionDeclSyntax.self) { (kind, node) = ("extension", Syntax(decl.extensionKeyword)) }
        else { (kind, node) = ("declaration", Syntax(declaration)) }
        diagnose(Diagnostic(node: node, message: GenerableDiagnostic.notStructOrEnum(kind)))
        return nil
    }

    /// The generated stored properties of one `var`/`let` declaration, or `nil` after a diagnostic.
    private static func readProperties(_ variable: VariableDeclSyntax, diagnose: (Diagnostic) -> Void) -> [StoredProperty]? {
        let isStatic = variable.modifiers.contains { ["static", "class"].contains($0.name.text) }
        if isStatic { return [] }
        let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
        let guide = variable.attributes.compactMap { $0.as(AttributeSyntax.self) }.first {
            $0.attributeName.trimmedDescription == "Guide"
        }
        var result: [StoredProperty] = []
        var failed = false
        for binding in variable.bindings {
            guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
                diagnose(Diagnostic(node: binding.pattern, message: GenerableDiagnostic.unsupportedPattern))
                failed = true
                continue
            }
            if let accessors = binding.accessorBlock, isComputed(accessors) { continue }
            // A `let` with a value cannot be set from generated content: it is not generated.
            if isLet, binding.initializer != nil { continue }
            guard let type = binding.typeAnnotation?.type else {
                diagnose(Diagnostic(node: binding.pattern, message: GenerableDiagnostic.missingType(pattern.identifier.text)))
                failed = true
                continue
            }
            if let problem = unsupportedType(type) {
                diagnose(Diagnostic(node: type, message: GenerableDiagnostic.unsupportedType(problem)))
                failed = true
                continue
            }
            let (isOptional, wrapped) = optionalInfo(type)
            var property = StoredProperty(
                name: pattern.identifier.text.trimmingBackticks,
                identifier: pattern.identifier.text,
                type: type.trimmed,
                isOptional: isOptional,
                wrappedType: wrapped,
                description: nil,
                guides: [],
                regex: nil
            )
            if let guide, let arguments = guide.arguments?.as(LabeledExprListSyntax.self) {
                for argument in arguments {
                    if argument.label?.text == "description" {
                        property.description = argument.expression.trimmedDescription
                    } else if argument.expression.is(RegexLiteralExprSyntax.self) {
                        property.regex = argument.expression.trimmed
                    } else {
                        property.guides.append(argument.expression.trimmed)
                    }
                }
            }
            result.append(property)
        }
        return failed ? nil : result
    }

    /// Whether an accessor block makes a computed property (observers alone do not).
    private static func isComputed(_ accessors: AccessorBlockSyntax) -> Bool {
        switch accessors.accessors {
        case .getter: return true
        case .accessors(let list):
            return list.contains { ["get", "set", "_read", "_modify", "unsafeAddress"].contains($0.accessorSpecifier.text) }
        }
    }

    /// Why a type cannot be generated, or `nil` if it may be (the compiler checks `Generable`).
    static func unsupportedType(_ type: TypeSyntax) -> String? {
        if type.is(FunctionTypeSyntax.self) { return "a function type cannot be generated" }
        if let tuple = type.as(TupleTypeSyntax.self) {
            if tuple.elements.count == 1, let only = tuple.elements.first { return unsupportedType(only.type) }
            return "a tuple cannot be generated; use a @Generable struct"
        }
        if type.is(DictionaryTypeSyntax.self) { return "a dictionary cannot be generated; use an array of a @Generable struct" }
        if type.is(SomeOrAnyTypeSyntax.self) { return "an existential or opaque type cannot be generated; use a concrete @Generable type" }
        if type.is(MetatypeTypeSyntax.self) { return "a metatype cannot be generated" }
        if let optional = type.as(OptionalTypeSyntax.self) { return unsupportedType(optional.wrappedType) }
        if let optional = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return unsupportedType(optional.wrappedType) }
        if let array = type.as(ArrayTypeSyntax.self) { return unsupportedType(array.element) }
        if let attributed = type.as(AttributedTypeSyntax.self) { return unsupportedType(attributed.baseType) }
        return nil
    }

    /// Whether a type is optional, and the type inside.
    static func optionalInfo(_ type: TypeSyntax) -> (Bool, TypeSyntax) {
        if let optional = type.as(OptionalTypeSyntax.self) { return (true, optional.wrappedType.trimmed) }
        if let optional = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return (true, optional.wrappedType.trimmed) }
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Optional",
           let argument = identifier.genericArgumentClause?.arguments.first,
           case .type(let wrapped) = argument.argument {
            return (true, wrapped.trimmed)
        }
        return (false, type.trimmed)
    }

    static func accessPrefix(_ modifiers: DeclModifierListSyntax) -> String {
        for modifier in modifiers {
            switch modifier.name.text {
            case "public", "open": return "public "
            case "package": return "package "
            default: continue
            }
        }
        return ""
    }

    static func argument(named label: String, in attribute: AttributeSyntax) -> String? {
        guard let arguments = attribute.arguments?.as(LabeledExprListSyntax.self) else { return nil }
        return arguments.first { $0.label?.text == label }?.expression.trimmedDescription
    }
}

extension String {
    var trimmingBackticks: String {
        hasPrefix("`") && hasSuffix("`") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}
