import Foundation
import LocalLM
import LocalLMGrammar
import Testing

// Types written as FoundationModels code is written; only the import differs.

@Generable
struct Age {
    var years: Int
    var months: Int
}

@Generable(description: "Basic profile information about a cat")
struct Cat {
    @Guide(description: "The age of the cat")
    var age: Age
    var name: String
    @Guide(description: "One sentence about this cat's personality")
    var profile: String
}

@Generable
struct Hedgehog {
    @Guide(description: "A cute old-timey name")
    var name: String

    @Guide(description: "The hedgehog's age", .range(0...8))
    var age: Int

    @Guide(description: "The hedgehog's favorite food", .anyOf(["carrot", "turnip", "leek"]))
    var favoriteFood: String

    @Guide(.constant("a hedge"))
    var home: String

    @Guide(description: "The hedgehog's hobbies", .count(3))
    var hobbies: [String]
}

@Generable
struct Person {
    @Guide(description: "The person's age", .range(18...100))
    var age: Int?

    @Guide(description: "The person's children", .maximumCount(3))
    var children: [Person]

    @Guide(description: "The person's name")
    var name: String
}

@Generable
struct ShelterNewsletter {
    let title: String
    let topic: String
    @Guide(description: "A local company that's sponsoring this newsletter, if applicable")
    let sponsor: String?
    let issueNumber: Int?
    @Guide(description: "Search keywords for this newsletter")
    let tags: [String]?
    let featuredCats: [Cat]?
    let featuredHedgehog: Hedgehog?
    let featuredStaff: [Person]?
}

@Generable(description: "How a record sounds")
public enum Genre: Sendable {
    case jazz, rock, `default`
}

@Generable
public enum Shape: Sendable {
    case none
    case circle(radius: Double)
    case rectangle(width: Double, height: Double, label: String?)
    case point(Int, Int)
}

@Generable
public struct SearchArguments: Sendable {
    @Guide(description: "The artist to look up", /[A-Za-z ]+/)
    public var artist: String
    @Guide(description: "How many records", .range(1...5))
    public var limit: Int
    @Guide(description: "Years to search", .count(1...3), .element(.range(1950...2030)))
    public var years: [Int]
    @Guide(description: "Minimum rating", .minimum(0.5), .maximum(5))
    public var rating: Double
    public var genre: Genre
    public var shape: Shape?
    /// Computed properties are not generated.
    public var summary: String { "\(artist) x\(limit)" }
    /// A constant is not generated either.
    let version = 1
}

@Generable(description: "A contact", representNilExplicitlyInGeneratedContent: true)
struct Contact {
    var name: String
    @Guide(description: "Phone, if known")
    var phone: String?
}

/// A tool's arguments when it takes none, as FoundationModels code declares them.
@Generable
struct NoArguments {}

@Suite("@Generable behaviour")
struct GenerableMacroBehaviorTests {
    @Test func hedgehogSchemaMatchesApplesShape() throws {
        // The shape of Apple's published schema for this type (python-apple-fm-sdk's tester_schemas),
        // with our keys for guides.
        let expected = """
        {"type": "object", "title": "Hedgehog", "additionalProperties": false,
         "properties": {
           "name": {"type": "string", "description": "A cute old-timey name"},
           "age": {"type": "integer", "minimum": 0, "maximum": 8, "description": "The hedgehog's age"},
           "favoriteFood": {"type": "string", "enum": ["carrot", "turnip", "leek"], "description": "The hedgehog's favorite food"},
           "home": {"type": "string", "enum": ["a hedge"]},
           "hobbies": {"type": "array", "items": {"type": "string"}, "minItems": 3, "maxItems": 3, "description": "The hedgehog's hobbies"}
         },
         "required": ["name", "age", "favoriteFood", "home", "hobbies"],
         "x-order": ["name", "age", "favoriteFood", "home", "hobbies"]}
        """
        #expect(try jsonObject(Hedgehog.generationSchema.jsonSchemaString) == jsonObject(expected))
    }

    @Test func newsletterSchemaHasDefinitionsAndOptionals() throws {
        let schema = try jsonObject(ShelterNewsletter.generationSchema.jsonSchemaString)
        #expect(schema["required"] as? [String] == ["title", "topic"])
        #expect(schema["x-order"] as? [String] == [
            "title", "topic", "sponsor", "issueNumber", "tags", "featuredCats", "featuredHedgehog", "featuredStaff",
        ])
        let defs = try #require(schema["$defs"] as? [String: Any])
        #expect(Set(defs.keys) == ["Age", "Cat", "Hedgehog", "Person"])
        let person = try #require(defs["Person"] as? NSDictionary)
        let personProperties = try #require(person["properties"] as? [String: Any])
        #expect((personProperties["children"] as? NSDictionary)?["items"] as? NSDictionary == ["$ref": "#/$defs/Person"])
        #expect(person["required"] as? [String] == ["children", "name"])
        let cat = try #require(defs["Cat"] as? NSDictionary)
        #expect(cat["description"] as? String == "Basic profile information about a cat")
        // A recursive type at the root refers to itself as "#".
        let root = try jsonObject(Person.generationSchema.jsonSchemaString)
        let children = (root["properties"] as? [String: Any])?["children"] as? NSDictionary
        #expect(children?["items"] as? NSDictionary == ["$ref": "#"])
        #expect(children?["maxItems"] as? Int == 3)
    }

    @Test func enumSchemas() throws {
        #expect(try jsonObject(Genre.generationSchema.jsonSchemaString) == jsonObject("""
        {"type": "string", "title": "Genre", "description": "How a record sounds", "enum": ["jazz", "rock", "default"]}
        """))
        #expect(try jsonObject(Shape.generationSchema.jsonSchemaString) == jsonObject("""
        {"title": "Shape", "anyOf": [
          {"type": "string", "enum": ["none"]},
          {"type": "object", "properties": {"circle": {"type": "object", "properties": {"radius": {"type": "number"}},
             "required": ["radius"], "x-order": ["radius"], "additionalProperties": false}},
           "required": ["circle"], "x-order": ["circle"], "additionalProperties": false},
          {"type": "object", "properties": {"rectangle": {"type": "object",
             "properties": {"width": {"type": "number"}, "height": {"type": "number"}, "label": {"type": "string"}},
             "required": ["width", "height"], "x-order": ["width", "height", "label"], "additionalProperties": false}},
           "required": ["rectangle"], "x-order": ["rectangle"], "additionalProperties": false},
          {"type": "object", "properties": {"point": {"type": "object",
             "properties": {"_0": {"type": "integer"}, "_1": {"type": "integer"}},
             "required": ["_0", "_1"], "x-order": ["_0", "_1"], "additionalProperties": false}},
           "required": ["point"], "x-order": ["point"], "additionalProperties": false}
        ]}
        """))
    }

    @Test func argumentsSchemaCarriesEveryGuide() throws {
        let schema = try jsonObject(SearchArguments.generationSchema.jsonSchemaString)
        let properties = try #require(schema["properties"] as? [String: NSDictionary])
        #expect(properties["artist"]?["pattern"] as? String == "^[A-Za-z ]+$")
        #expect(properties["limit"]?["minimum"] as? Int == 1)
        #expect(properties["limit"]?["maximum"] as? Int == 5)
        #expect(properties["years"]?["minItems"] as? Int == 1)
        #expect(properties["years"]?["maxItems"] as? Int == 3)
        #expect(properties["years"]?["items"] as? NSDictionary == ["type": "integer", "minimum": 1950, "maximum": 2030])
        #expect(properties["rating"]?["minimum"] as? Double == 0.5)
        #expect(properties["genre"] == ["$ref": "#/$defs/Genre"])
        #expect(schema["x-order"] as? [String] == ["artist", "limit", "years", "rating", "genre", "shape"])
        #expect(schema["required"] as? [String] == ["artist", "limit", "years", "rating", "genre"])
    }

    @Test func roundTripsStructsThroughContentAndJSON() throws {
        let value = SearchArguments(
            artist: "Miles Davis", limit: 3, years: [1959], rating: 4.5, genre: .jazz,
            shape: .rectangle(width: 2, height: 3.5, label: nil)
        )
        #expect(value.generatedContent.jsonString == """
        {"artist": "Miles Davis", "limit": 3, "years": [1959], "rating": 4.5, "genre": "jazz", \
        "shape": {"rectangle": {"width": 2, "height": 3.5}}}
        """)
        let decoded = try SearchArguments(GeneratedContent(json: value.generatedContent.jsonString))
        #expect(decoded.generatedContent == value.generatedContent)
        #expect(decoded.summary == "Miles Davis x3")

        let newsletter = try ShelterNewsletter(GeneratedContent(json: """
        {"title": "Paws", "topic": "Adoption", "featuredCats": [{"age": {"years": 2, "months": 1}, "name": "Tom", "profile": "Calm."}]}
        """))
        #expect(newsletter.sponsor == nil)
        #expect(newsletter.featuredCats?.first?.age.years == 2)
        #expect(newsletter.generatedContent.jsonString == """
        {"title": "Paws", "topic": "Adoption", "featuredCats": [{"age": {"years": 2, "months": 1}, "name": "Tom", "profile": "Calm."}]}
        """)
    }

    @Test(arguments: [
        (Shape.none, #""none""#),
        (Shape.circle(radius: 1.5), #"{"circle": {"radius": 1.5}}"#),
        (Shape.rectangle(width: 1, height: 2, label: "box"), #"{"rectangle": {"width": 1, "height": 2, "label": "box"}}"#),
        (Shape.point(3, -4), #"{"point": {"_0": 3, "_1": -4}}"#),
    ])
    func roundTripsEnums(shape: Shape, json: String) throws {
        #expect(shape.generatedContent.jsonString == json)
        #expect(try Shape(GeneratedContent(json: json)).generatedContent == shape.generatedContent)
    }

    @Test func enumDecodingErrorsNameTheType() throws {
        #expect(try Genre(GeneratedContent(json: #""default""#)) == .default)
        #expect(throws: GeneratedContentError.unknownCase("pop", type: "Genre")) {
            try Genre(GeneratedContent(json: #""pop""#))
        }
        #expect(throws: GeneratedContentError.self) { try Shape(GeneratedContent(json: #"{"hexagon": {}}"#)) }
        #expect(throws: GeneratedContentError.self) { try Shape(GeneratedContent(json: #""square""#)) }
    }

    @Test func missingRequiredPropertyIsAnError() {
        #expect(throws: GeneratedContentError.missingProperty("months", available: ["years"], path: ["age"])) {
            try Cat(GeneratedContent(json: #"{"age": {"years": 1}, "name": "Tom", "profile": "x"}"#))
        }
    }

    @Test func partiallyGeneratedFillsInAsTheStreamGrows() throws {
        let json = #"{"age": {"years": 2, "months": 1}, "name": "Tom", "profile": "Calm and curious."}"#
        var snapshots: [Cat.PartiallyGenerated] = []
        for end in json.indices.dropFirst() {
            snapshots.append(try Cat.PartiallyGenerated(GeneratedContent(json: String(json[..<end]))))
        }
        #expect(snapshots.first?.age == nil && snapshots.first?.name == nil)
        let mid = try Cat.PartiallyGenerated(GeneratedContent(json: #"{"age": {"years": 2"#))
        #expect(mid.age?.years == 2)
        #expect(mid.age?.months == nil)
        #expect(mid.name == nil)
        let late = try Cat.PartiallyGenerated(GeneratedContent(json: #"{"age": {"years": 2, "months": 1}, "name": "Tom", "profile": "Calm an"#))
        #expect(late.profile == "Calm an")
        // The generation identity is kept across snapshots of the same content.
        let id = GenerationID()
        var content = try GeneratedContent(json: #"{"name": "T"#)
        content.id = id
        #expect(try Cat.PartiallyGenerated(content).id == id)
        // A complete value converts to its partial form.
        let cat = try Cat(GeneratedContent(json: json))
        #expect(cat.asPartiallyGenerated().profile == "Calm and curious.")
        // Arrays of Generable types stream as arrays of partial elements.
        let staff = try [Person].PartiallyGenerated(GeneratedContent(json: #"[{"name": "Ann", "children": []}, {"na"#))
        #expect(staff.count == 2)
        #expect(staff[0].name == "Ann")
        #expect(staff[1].name == nil)
    }

    @Test func explicitNilIsGeneratedAsNull() throws {
        #expect(try jsonObject(Contact.generationSchema.jsonSchemaString) == jsonObject("""
        {"type": "object", "title": "Contact", "description": "A contact", "additionalProperties": false,
         "properties": {"name": {"type": "string"},
                        "phone": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "Phone, if known"}},
         "required": ["name", "phone"], "x-order": ["name", "phone"]}
        """))
        let contact = Contact(name: "Ann", phone: nil)
        #expect(contact.generatedContent.jsonString == #"{"name": "Ann", "phone": null}"#)
        #expect(try Contact(GeneratedContent(json: #"{"name": "Ann", "phone": null}"#)).phone == nil)
        #expect(try Contact(GeneratedContent(json: #"{"name": "Ann", "phone": "555"}"#)).phone == "555")
    }

    /// Streaming must never fail on a prefix of valid output, whatever the field types
    /// (enums, tagged enums, nested types, arrays of enums, optionals).
    @Test func everyPrefixOfValidOutputGivesASnapshot() throws {
        let values = [
            SearchArguments(artist: "Miles Davis", limit: 3, years: [1959, 1961], rating: 4.5, genre: .jazz,
                            shape: .rectangle(width: 2, height: 3.5, label: "cover")),
            SearchArguments(artist: "X", limit: 1, years: [2001], rating: 1, genre: .default, shape: .point(1, -2)),
            SearchArguments(artist: "Y", limit: 2, years: [1990], rating: 2, genre: .rock, shape: Shape.none),
        ]
        for value in values {
            let json = value.generatedContent.jsonString
            var lastArtist = ""
            for end in json.indices.dropFirst() {
                let prefix = String(json[..<end])
                let snapshot = try SearchArguments.PartiallyGenerated(GeneratedContent(json: prefix))
                if let artist = snapshot.artist {
                    #expect(artist.hasPrefix(lastArtist), "fields only grow")
                    lastArtist = artist
                }
                // An enum appears only once its name is complete.
                if let genre = snapshot.genre { #expect(genre == value.genre) }
            }
            let final = try SearchArguments.PartiallyGenerated(GeneratedContent(json: json))
            #expect(final.genre == value.genre && final.years == value.years && final.artist == value.artist)
        }
        let genres = try [Genre].PartiallyGenerated(GeneratedContent(json: #"["jazz", "ro"#))
        #expect(genres == [.jazz])
        // Complete but wrong content is still an error.
        #expect(throws: GeneratedContentError.self) {
            try SearchArguments.PartiallyGenerated(GeneratedContent(json: #"{"genre": "pop", "#))
        }
    }

    @Test func memberwiseInitializerIsKept() {
        let hedgehog = Hedgehog(name: "Bramble", age: 3, favoriteFood: "leek", home: "a hedge", hobbies: ["a", "b", "c"])
        #expect(hedgehog.generatedContent.jsonString.hasPrefix(#"{"name": "Bramble", "age": 3"#))
    }

    /// `@Generable struct Arguments {}`: an object with no properties, whose grammar admits only `{}`
    /// (checked with the JSON Schema compiler, as a tool's arguments are constrained).
    @Test func aStructWithNoPropertiesIsTheEmptyObject() throws {
        let schema = try jsonObject(NoArguments.generationSchema.jsonSchemaString)
        #expect(schema["type"] as? String == "object")
        #expect((schema["properties"] as? [String: Any])?.isEmpty ?? true)
        #expect(schema["additionalProperties"] as? Bool == false)
        #expect(NoArguments().generatedContent.jsonString == "{}")
        _ = try NoArguments(GeneratedContent(json: "{}"))
        let grammar = try CompiledGrammar(jsonSchema: NoArguments.generationSchema.jsonSchemaString)
        func accepts(_ text: String) -> Bool {
            var matcher = GrammarMatcher(grammar)
            return matcher.accept(bytes: Array(text.utf8)) && matcher.canTerminate
        }
        #expect(accepts("{}"))
        #expect(!accepts(#"{"a": 1}"#))
        #expect(!accepts("[]"))
    }
}
