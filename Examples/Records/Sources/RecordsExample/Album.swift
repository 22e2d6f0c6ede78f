import GRDB

/// One record in the collection: a row of the `album` table.
public struct Album: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public var title: String
    public var artist: String
    /// One of `Album.genres`.
    public var genre: String
    public var year: Int

    public init(title: String, artist: String, genre: String, year: Int) {
        self.title = title
        self.artist = artist
        self.genre = genre
        self.year = year
    }

    /// The genres the collection files records under; the genre tool's `anyOf`.
    public static let genres = ["rock", "jazz", "electronic", "hip hop", "soul", "folk", "classical", "pop"]

    /// The years the collection spans, for the genre tool's ranges.
    public static let years = 1950...2025

    /// What the model reads about the record.
    var summary: String { "\(title) by \(artist) (\(year), \(genre))" }
}
