import Foundation
import GRDB

/// The record collection: a SQLite database through GRDB. Queries are parameterised, so what
/// the model writes into tool arguments is data, never SQL.
public struct RecordStore: Sendable {
    private let database: DatabaseQueue

    /// Opens (or creates) the database at `path` and brings its schema up to date.
    public init(path: String) throws {
        database = try DatabaseQueue(path: path)
        try Self.migrator.migrate(database)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("albums") { db in
            try db.create(table: "album") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("title", .text).notNull()
                table.column("artist", .text).notNull().indexed()
                table.column("genre", .text).notNull().indexed()
                table.column("year", .integer).notNull()
            }
        }
        return migrator
    }

    /// Replaces the collection's records with `albums`.
    public func replaceAll(with albums: [Album]) async throws {
        try await database.write { db in
            try Album.deleteAll(db)
            for album in albums { try album.insert(db) }
        }
    }

    /// The number of records.
    public func count() async throws -> Int {
        try await database.read { db in try Album.fetchCount(db) }
    }

    /// Records whose artist contains `artist`, ignoring case (SQLite's LIKE, for ASCII), oldest first.
    public func albums(byArtist artist: String) async throws -> [Album] {
        let trimmed = artist.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return [] }
        // `%` and `_` in the name are literal characters, not wildcards.
        let escaped = trimmed.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
        return try await database.read { db in
            try Album.filter(Column("artist").like("%\(escaped)%", escape: "\\"))
                .order(Column("year"), Column("title")).fetchAll(db)
        }
    }

    /// Up to `limit` records of `genre` released within `years`, oldest first.
    public func albums(genre: String, years: ClosedRange<Int>, limit: Int) async throws -> [Album] {
        try await database.read { db in
            try Album.filter(Column("genre") == genre.lowercased() && years.contains(Column("year")))
                .order(Column("year"), Column("title")).limit(max(0, limit)).fetchAll(db)
        }
    }
}
