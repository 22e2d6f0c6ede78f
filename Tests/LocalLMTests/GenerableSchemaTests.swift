import Foundation
import LocalLM
import Testing

/// Parses JSON text into Foundation objects, for order-insensitive comparison.
func jsonObject(_ text: String) throws -> NSDictionary {
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try #require(object as? NSDictionary)
}

/// Conformances written by hand, as the macro would, so the schema layer is tested on its own.
struct HandAge: Generable {
    var years: Int
    var months: Int

    static var generationSchema: GenerationSchema {
        GenerationSchema(type: Self.self, properties: [
            .init(name: "years", type: Int.self),
            .init(name: "months", type: Int.self),
        ])
    }

    init(years: Int, months: Int) {
        self.years = years
        self.months = months
    }

    init(_ content: GeneratedContent) throws {
        years = try content.value(forProperty: "years")
        months = try content.value(forProperty: "months")
    }

    var generatedContent: GeneratedContent {
        GeneratedContent(properties: ["years": years, "months": months])
    }
}

struct HandPerson: Generable {
    var name: String
    var age: HandAge?
    var children: [HandPerson]

    static var generationSchema: GenerationSchema {
        GenerationSchema(type: Self.self, description: "A person", properties: [
            .init(name: "name", description: "Full name", type: String.self, guides: [/[A-Z][a-z]+ [A-Z][a-z]+/]),
            .init(name: "age", description: "How old", type: HandAge?.self),
            .init(name: "children", type: [HandPerson].self, guides: [.maximumCount(3)]),
        ])
    }

    init(_ content: GeneratedContent) throws {
        name = try content.value(forProperty: "name")
        age = try content.value(forProperty: "age")
        children = try content.value(forProperty: "children")
    }

    var generatedContent: GeneratedContent {
        GeneratedContent(properties: ["name": name, "age": age, "children": children])
    }
}

@Suite("GenerationSchema")
struct GenerableSchemaTests {
    @Test func encodesNestedAndRecursiveTypesInApplesShape() throws {
        let schema = HandPerson.generationSchema
        let expected = """
        {
          "$defs": {
            "HandAge": {
              "type": "object", "title": "HandAge",
              "properties": {"years": {"type": "integer"}, "months": {"type": "integer"}},
              "required": ["years", "months"], "x-order": ["years", "months"], "additionalProperties": false
            }
          },
          "type": "object", "title": "HandPerson", "description": "A person",
          "properties": {
            "name": {"type": "string", "pattern": "[A-Z][a-z]+ [A-Z][a-z]+", "description": "Full name"},
            "age": {"$ref": "#/$defs/HandAge", "description": "How old"},
            "children": {"type": "array", "items": {"$ref": "#"}, "maxItems": 3}
          },
          "required": ["name", "children"], "x-order": ["name", "age", "children"], "additionalProperties": false
        }
        """
        #expect(try jsonObject(schema.jsonSchemaString) == jsonObject(expected))
        // Property order is kept in the text itself, not only in x-order.
        let text = schema.jsonSchemaString
        let name = try #require(text.range(of: "\"name\": {"))
        let age = try #require(text.range(of: "\"age\": {"))
        let children = try #require(text.range(of: "\"children\": {"))
        #expect(name.lowerBound < age.lowerBound && age.lowerBound < children.lowerBound)
    }

    @Test func guidesFlowIntoTheSchema() throws {
        struct Holder: Generable {
            static var generationSchema: GenerationSchema {
                GenerationSchema(type: Self.self, properties: [
                    .init(name: "level", type: Int.self, guides: [.range(1...6)]),
                    .init(name: "ratio", type: Double.self, guides: [.minimum(0.5), .maximum(2)]),
                    .init(name: "price", type: Decimal.self, guides: [.minimum(0.75)]),
                    .init(name: "weight", type: Float.self, guides: [.range(1...2)]),
                    .init(name: "kind", type: String.self, guides: [.anyOf(["a", "b"])]),
                    .init(name: "home", type: String.self, guides: [.constant("a hedge")]),
                    .init(name: "code", type: String.self, guides: [.pattern(/\d{3}/)]),
                    .init(name: "tags", type: [String].self, guides: [.count(2...4), .element(.anyOf(["x", "y"]))]),
                    .init(name: "three", type: [Int].self, guides: [.count(3), .element(.range(0...9))]),
                    .init(name: "few", type: [Bool].self, guides: [.minimumCount(1)]),
                ])
            }
            init(_ content: GeneratedContent) throws {}
            var generatedContent: GeneratedContent { GeneratedContent(properties: [:]) }
        }
        let expected = """
        {"type": "object", "title": "Holder", "additionalProperties": false,
         "properties": {
           "level": {"type": "integer", "minimum": 1, "maximum": 6},
           "ratio": {"type": "number", "minimum": 0.5, "maximum": 2},
           "price": {"type": "number", "minimum": 0.75},
           "weight": {"type": "number", "minimum": 1, "maximum": 2},
           "kind": {"type": "string", "enum": ["a", "b"]},
           "home": {"type": "string", "enum": ["a hedge"]},
           "code": {"type": "string", "pattern": "\\\\d{3}"},
           "tags": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}, "minItems": 2, "maxItems": 4},
           "three": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 9}, "minItems": 3, "maxItems": 3},
           "few": {"type": "array", "items": {"type": "boolean"}, "minItems": 1}
         },
         "required": ["level", "ratio", "price", "weight", "kind", "home", "code", "tags", "three", "few"],
         "x-order": ["level", "ratio", "price", "weight", "kind", "home", "code", "tags", "three", "few"]}
        """
        #expect(try jsonObject(Holder.generationSchema.jsonSchemaString) == jsonObject(expected))
    }

    @Test func choicesOfStringsAndOfTypes() throws {
        struct Mood: Generable {
            static var generationSchema: GenerationSchema {
                GenerationSchema(type: Self.self, description: "How it feels", anyOf: ["happy", "sad"])
            }
            init(_ content: GeneratedContent) throws {}
            var generatedContent: GeneratedContent { GeneratedContent("happy") }
        }
        struct Either: Generable {
            static var generationSchema: GenerationSchema {
                GenerationSchema(type: Self.self, anyOf: [Mood.self, HandAge.self, Int.self])
            }
            init(_ content: GeneratedContent) throws {}
            var generatedContent: GeneratedContent { GeneratedContent(1) }
        }
        #expect(try jsonObject(Mood.generationSchema.jsonSchemaString) == jsonObject("""
        {"type": "string", "title": "Mood", "description": "How it feels", "enum": ["happy", "sad"]}
        """))
        #expect(try jsonObject(Either.generationSchema.jsonSchemaString) == jsonObject("""
        {"$defs": {
           "Mood": {"type": "string", "title": "Mood", "description": "How it feels", "enum": ["happy", "sad"]},
           "HandAge": {"type": "object", "title": "HandAge",
                       "properties": {"years": {"type": "integer"}, "months": {"type": "integer"}},
                       "required": ["years", "months"], "x-order": ["years", "months"], "additionalProperties": false}},
         "title": "Either",
         "anyOf": [{"$ref": "#/$defs/Mood"}, {"$ref": "#/$defs/HandAge"}, {"type": "integer"}]}
        """))
    }

    @Test func builtInSchemas() throws {
        #expect(String.generationSchema.jsonSchemaString == #"{"type": "string"}"#)
        #expect(Int.generationSchema.jsonSchemaString == #"{"type": "integer"}"#)
        #expect(Double.generationSchema.jsonSchemaString == #"{"type": "number"}"#)
        #expect(Bool.generationSchema.jsonSchemaString == #"{"type": "boolean"}"#)
        #expect([Int].generationSchema.jsonSchemaString == #"{"type": "array", "items": {"type": "integer"}}"#)
        #expect(Int?.generationSchema.jsonSchemaString == #"{"type": "integer"}"#)
    }

    @Test func dynamicSchemas() throws {
        let age = DynamicGenerationSchema(name: "Age", properties: [
            .init(name: "years", schema: .init(type: Int.self, guides: [.range(0...30)])),
        ])
        let color = DynamicGenerationSchema(name: "Color", description: "Fur", anyOf: ["black", "white"])
        let cat = DynamicGenerationSchema(name: "Cat", description: "A cat", properties: [
            .init(name: "name", description: "Its name", schema: .init(type: String.self)),
            .init(name: "age", schema: .init(referenceTo: "Age")),
            .init(name: "fur", schema: .init(referenceTo: "Color"), isOptional: true),
            .init(name: "friends", schema: .init(arrayOf: .init(referenceTo: "Cat"), minimumElements: 0, maximumElements: 2)),
            .init(name: "pet", schema: .init(name: "Pet", anyOf: [.init(referenceTo: "Age"), .init(type: Bool.self)])),
        ])
        let schema = try GenerationSchema(root: cat, dependencies: [age, color])
        #expect(try jsonObject(schema.jsonSchemaString) == jsonObject("""
        {"$defs": {
           "Age": {"type": "object", "title": "Age", "properties": {"years": {"type": "integer", "minimum": 0, "maximum": 30}},
                   "required": ["years"], "x-order": ["years"], "additionalProperties": false},
           "Color": {"type": "string", "title": "Color", "description": "Fur", "enum": ["black", "white"]},
           "Pet": {"title": "Pet", "anyOf": [{"$ref": "#/$defs/Age"}, {"type": "boolean"}]}},
         "type": "object", "title": "Cat", "description": "A cat",
         "properties": {
           "name": {"type": "string", "description": "Its name"},
           "age": {"$ref": "#/$defs/Age"},
           "fur": {"$ref": "#/$defs/Color"},
           "friends": {"type": "array", "items": {"$ref": "#"}, "minItems": 0, "maxItems": 2},
           "pet": {"$ref": "#/$defs/Pet"}},
         "required": ["name", "age", "friends", "pet"], "x-order": ["name", "age", "fur", "friends", "pet"],
         "additionalProperties": false}
        """))
    }

    @Test func dynamicSchemaErrors() {
        let a = DynamicGenerationSchema(name: "A", properties: [.init(name: "b", schema: .init(referenceTo: "B"))])
        #expect {
            try GenerationSchema(root: a, dependencies: [])
        } throws: { error in
            guard case GenerationSchema.SchemaError.undefinedReferences(_, let references, _) = error else { return false }
            return references == ["B"]
        }
        #expect {
            try GenerationSchema(root: a, dependencies: [DynamicGenerationSchema(name: "A", anyOf: ["x"]),
                                                        DynamicGenerationSchema(name: "B", anyOf: ["y"])])
        } throws: { error in
            guard case GenerationSchema.SchemaError.duplicateType(_, let type, _) = error else { return false }
            return type == "A"
        }
        let twice = DynamicGenerationSchema(name: "T", properties: [
            .init(name: "x", schema: .init(type: Int.self)), .init(name: "x", schema: .init(type: String.self)),
        ])
        #expect {
            try GenerationSchema(root: twice, dependencies: [])
        } throws: { error in
            guard case GenerationSchema.SchemaError.duplicateProperty(_, let property, _) = error else { return false }
            return property == "x"
        }
        let empty = DynamicGenerationSchema(name: "E", anyOf: [DynamicGenerationSchema]())
        #expect {
            try GenerationSchema(root: empty, dependencies: [])
        } throws: { error in
            guard case GenerationSchema.SchemaError.emptyTypeChoices = error else { return false }
            return true
        }
    }

    @Test func codableRoundTrip() throws {
        let schema = HandPerson.generationSchema
        let data = try JSONEncoder().encode(schema)
        let decoded = try JSONDecoder().decode(GenerationSchema.self, from: data)
        #expect(try jsonObject(decoded.jsonSchemaString) == jsonObject(schema.jsonSchemaString))
        // Property order survives a decoder that does not keep key order, through x-order.
        #expect(decoded.jsonSchemaString == schema.jsonSchemaString)
    }

    @Test func roundTripsValuesThroughContent() throws {
        let person = try HandPerson(GeneratedContent(json: """
        {"name": "Ada Lovelace", "age": {"years": 36, "months": 10}, "children": [{"name": "Byron King", "children": []}]}
        """))
        #expect(person.age?.years == 36)
        #expect(person.children.first?.age == nil)
        let again = try HandPerson(person.generatedContent)
        #expect(again.generatedContent == person.generatedContent)
    }
}
