import LocalLM

/// Suggests records of a genre from a span of years, or says plainly that there are none.
/// The genre is one of the collection's (`anyOf`) and the years and count are ranges, so the
/// grammar only lets the model write arguments the database can answer.
public struct SuggestByGenreTool: Tool {
    public let name = "suggestByGenre"
    public let description = "Suggests records from the collection in a genre, released between two years."

    @Generable
    public struct Arguments {
        @Guide(description: "The genre", .anyOf(Album.genres))
        public var genre: String
        @Guide(description: "The earliest release year", .range(Album.years))
        public var fromYear: Int
        @Guide(description: "The latest release year", .range(Album.years))
        public var toYear: Int
        @Guide(description: "How many records to suggest", .range(1...5))
        public var count: Int

        public init(genre: String, fromYear: Int, toYear: Int, count: Int) {
            self.genre = genre
            self.fromYear = fromYear
            self.toYear = toYear
            self.count = count
        }
    }

    let store: RecordStore

    public init(store: RecordStore) { self.store = store }

    public func call(arguments: Arguments) async throws -> String {
        // The model may write the years the wrong way round; the span is the same.
        let years = min(arguments.fromYear, arguments.toYear)...max(arguments.fromYear, arguments.toYear)
        let albums = try await store.albums(genre: arguments.genre, years: years, limit: arguments.count)
        guard !albums.isEmpty else {
            return "Nothing found: the collection has no \(arguments.genre) records from \(years.lowerBound) to \(years.upperBound)."
        }
        return "Suggestions: " + albums.map(\.summary).joined(separator: "; ") + "."
    }
}
