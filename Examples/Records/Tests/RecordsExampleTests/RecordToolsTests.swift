import Foundation
import LocalLM
import RecordsExample
import Testing

/// A fresh database file filled with the catalog, removed when the test ends.
struct TemporaryCollection {
    let path: String
    let store: RecordStore

    init() async throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("records-\(UUID().uuidString).sqlite").path
        store = try RecordStore(path: path)
        try await store.replaceAll(with: Album.catalog)
    }

    func remove() {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

@Suite("Record collection tools on a real SQLite database")
struct RecordToolsTests {
    @Test func theDatabaseHoldsTheCatalogAndSurvivesReopening() async throws {
        let collection = try await TemporaryCollection()
        defer { collection.remove() }
        #expect(try await collection.store.count() == Album.catalog.count)
        // Reopening runs the migrator again without harm and sees the same rows.
        let reopened = try RecordStore(path: collection.path)
        #expect(try await reopened.count() == Album.catalog.count)
        #expect(Set(Album.catalog.map(\.genre)).isSubset(of: Set(Album.genres)))
        #expect(Album.catalog.allSatisfy { Album.years.contains($0.year) })
    }

    @Test(arguments: [
        ("Miles Davis", "Found 2: Kind of Blue by Miles Davis (1959, jazz); Bitches Brew by Miles Davis (1970, jazz)."),
        ("miles davis", "Found 2: Kind of Blue by Miles Davis (1959, jazz); Bitches Brew by Miles Davis (1970, jazz)."),
        ("  Radiohead ", "Found 2: OK Computer by Radiohead (1997, rock); Kid A by Radiohead (2000, rock)."),
        ("Beatles", "Found 2: Revolver by The Beatles (1966, rock); Abbey Road by The Beatles (1969, rock)."),
        ("Beyoncé", "Nothing found: the collection has no records by Beyoncé."),
        ("%", "Nothing found: the collection has no records by %."),
        ("_", "Nothing found: the collection has no records by _."),
        ("", "Nothing found: the collection has no records by ."),
        ("'; DROP TABLE album; --", "Nothing found: the collection has no records by '; DROP TABLE album; --."),
    ])
    func lookUpArtist(artist: String, expected: String) async throws {
        let collection = try await TemporaryCollection()
        defer { collection.remove() }
        let tool = LookUpArtistTool(store: collection.store)
        #expect(try await tool.call(arguments: .init(artist: artist)) == expected)
        #expect(try await collection.store.count() == Album.catalog.count)
    }

    @Test(arguments: [
        ("jazz", 1950, 1960, 5, "Suggestions: Kind of Blue by Miles Davis (1959, jazz); Mingus Ah Um by Charles Mingus (1959, jazz); Time Out by The Dave Brubeck Quartet (1959, jazz); Giant Steps by John Coltrane (1960, jazz)."),
        ("jazz", 1960, 1950, 1, "Suggestions: Kind of Blue by Miles Davis (1959, jazz)."),
        ("electronic", 2000, 2025, 5, "Suggestions: Discovery by Daft Punk (2001, electronic); Random Access Memories by Daft Punk (2013, electronic)."),
        ("hip hop", 1990, 1995, 3, "Suggestions: The Low End Theory by A Tribe Called Quest (1991, hip hop); Illmatic by Nas (1994, hip hop)."),
        ("classical", 1990, 2025, 5, "Nothing found: the collection has no classical records from 1990 to 2025."),
        ("jazz", 1980, 2000, 2, "Nothing found: the collection has no jazz records from 1980 to 2000."),
    ])
    func suggestByGenre(genre: String, from: Int, to: Int, count: Int, expected: String) async throws {
        let collection = try await TemporaryCollection()
        defer { collection.remove() }
        let tool = SuggestByGenreTool(store: collection.store)
        #expect(try await tool.call(arguments: .init(genre: genre, fromYear: from, toYear: to, count: count)) == expected)
    }

    /// The expected answers above, worked out from the catalog in Swift rather than SQL.
    @Test func suggestionsAgreeWithTheCatalog() async throws {
        let collection = try await TemporaryCollection()
        defer { collection.remove() }
        for genre in Album.genres {
            for (from, to) in [(1950, 1969), (1970, 1989), (1990, 2025)] {
                let expected = Album.catalog.filter { $0.genre == genre && (from...to).contains($0.year) }
                    .sorted { ($0.year, $0.title) < ($1.year, $1.title) }.prefix(5)
                let found = try await collection.store.albums(genre: genre, years: from...to, limit: 5)
                #expect(found == Array(expected), "\(genre) \(from)-\(to)")
            }
        }
    }

    @Test func theArgumentsSchemaCarriesTheGuides() throws {
        let data = try JSONEncoder().encode(SuggestByGenreTool.Arguments.generationSchema)
        let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let properties = try #require(schema["properties"] as? [String: [String: Any]])
        #expect(properties["genre"]?["enum"] as? [String] == Album.genres)
        for year in ["fromYear", "toYear"] {
            #expect(properties[year]?["minimum"] as? Int == 1950)
            #expect(properties[year]?["maximum"] as? Int == 2025)
        }
        #expect(properties["count"]?["minimum"] as? Int == 1)
        #expect(properties["count"]?["maximum"] as? Int == 5)
    }
}
