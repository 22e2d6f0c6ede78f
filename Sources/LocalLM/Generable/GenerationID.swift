import Foundation

/// Identifies one generated value across the snapshots of a stream, so that a list can keep
/// its rows stable while their fields fill in.
public struct GenerationID: Sendable, Hashable {
    private let value: UUID

    /// Creates a new, unique identifier.
    public init() {
        value = UUID()
    }
}

extension GenerationID: CustomDebugStringConvertible {
    public var debugDescription: String { "GenerationID(\(value.uuidString))" }
}
