/// The key/value metadata of a GGUF file, with typed accessors.
///
/// Accessors return nil when a key is absent and throw `.typeMismatch` (naming the key and the type found)
/// when it is present with another type, so a model loader can tell "optional and missing" from "broken".
public struct GGUFMetadata: Sendable {
    /// Keys in file order.
    public let keys: [String]
    private let entries: [String: Entry]

    struct Entry: Sendable {
        let value: GGUFValue
        /// File offset of the value (after its type id).
        let offset: Int
    }

    init(keys: [String], entries: [String: Entry]) {
        self.keys = keys
        self.entries = entries
    }

    public subscript(key: String) -> GGUFValue? { entries[key]?.value }

    /// File offset of a key's value, for error messages in higher layers.
    public func offset(of key: String) -> Int? { entries[key]?.offset }

    /// `general.architecture`, e.g. `llama` or `gemma3`.
    public var architecture: String? {
        if case .string(let arch)? = self["general.architecture"] { return arch }
        return nil
    }

    /// The architecture-prefixed key, e.g. `archKey("block_count")` → `llama.block_count`.
    /// Without an architecture the key is `.suffix`, which no file defines.
    public func archKey(_ suffix: String) -> String { "\(architecture ?? "").\(suffix)" }

    private func entry(_ key: String) -> Entry? { entries[key] }

    private func mismatch(_ key: String, _ entry: Entry, expected: String) -> GGUFError {
        GGUFError(.typeMismatch(expected: expected, actual: entry.value.type), at: entry.offset, key: key)
    }

    public func string(_ key: String) throws(GGUFError) -> String? {
        guard let entry = entry(key) else { return nil }
        guard case .string(let value) = entry.value else { throw mismatch(key, entry, expected: "STRING") }
        return value
    }

    /// Any integer type, converted with a range check.
    public func int(_ key: String) throws(GGUFError) -> Int? {
        guard let entry = entry(key) else { return nil }
        guard entry.value.type.isInteger else { throw mismatch(key, entry, expected: "an integer") }
        guard let value = entry.value.intValue else {
            throw GGUFError(.valueOutOfRange("\(entry.value) does not fit Int"), at: entry.offset, key: key)
        }
        return value
    }

    /// FLOAT32, FLOAT64 or any integer type, as Double.
    public func float(_ key: String) throws(GGUFError) -> Double? {
        guard let entry = entry(key) else { return nil }
        guard let value = entry.value.doubleValue else { throw mismatch(key, entry, expected: "a number") }
        return value
    }

    public func bool(_ key: String) throws(GGUFError) -> Bool? {
        guard let entry = entry(key) else { return nil }
        guard case .bool(let value) = entry.value else { throw mismatch(key, entry, expected: "BOOL") }
        return value
    }

    public func array(_ key: String) throws(GGUFError) -> GGUFArray? {
        guard let entry = entry(key) else { return nil }
        guard case .array(let value) = entry.value else { throw mismatch(key, entry, expected: "ARRAY") }
        return value
    }
}
