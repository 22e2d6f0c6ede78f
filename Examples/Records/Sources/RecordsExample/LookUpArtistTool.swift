import LocalLM

/// Lists the collection's records by an artist, or says plainly that there are none.
public struct LookUpArtistTool: Tool {
    public let name = "lookUpArtist"
    public let description = "Looks up the records in the collection by an artist."

    @Generable
    public struct Arguments {
        @Guide(description: "The artist's name, for example Miles Davis")
        public var artist: String

        public init(artist: String) { self.artist = artist }
    }

    let store: RecordStore

    public init(store: RecordStore) { self.store = store }

    public func call(arguments: Arguments) async throws -> String {
        let albums = try await store.albums(byArtist: arguments.artist)
        guard !albums.isEmpty else {
            return "Nothing found: the collection has no records by \(arguments.artist)."
        }
        return "Found \(albums.count): " + albums.map(\.summary).joined(separator: "; ") + "."
    }
}
