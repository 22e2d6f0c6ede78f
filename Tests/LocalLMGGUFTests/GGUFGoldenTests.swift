import Foundation
import LocalLMGGUF
import LocalLMTestSupport
import Testing

/// Both real models against gguf-py: every metadata key and value, the whole tensor table, and the
/// ggml type sizes. Expectations come from `scripts/goldens/gguf_expectations.py`.
@Suite struct GGUFGoldenTests {
    static let models: [(label: String, url: URL)] = [("smollm2", TestModels.smolLM2), ("gemma3", TestModels.gemma3)]

    static func golden(_ name: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Fixtures.data("gguf/\(name).json"))
        return try #require(object as? [String: Any])
    }

    @Test(arguments: ["smollm2", "gemma3"])
    func headerAndMetadataMatchGGUFPy(label: String) throws {
        let url = try TestModels.require(label == "smollm2" ? TestModels.smolLM2 : TestModels.gemma3)
        let expected = try Self.golden(label)
        let file = try GGUFFile(contentsOf: url)
        #expect(Int(file.version) == expected["version"] as? Int)
        #expect(file.tensors.count == expected["tensor_count"] as? Int)
        #expect(file.metadata.keys.count == expected["kv_count"] as? Int)
        #expect(file.alignment == expected["alignment"] as? Int)
        #expect(file.dataOffset == expected["data_offset"] as? Int)

        let entries = try #require(expected["metadata"] as? [[String: Any]])
        #expect(file.metadata.keys == entries.compactMap { $0["key"] as? String })
        for entry in entries {
            let key = try #require(entry["key"] as? String)
            let typeName = try #require(entry["type"] as? String)
            let value = try #require(file.metadata[key], "\(key) missing")
            #expect(value.type.description == typeName, "\(key)")
            // gguf-py's offset is the key's; ours is the value's (after key length, key and type id).
            let kvOffset = try #require(entry["offset"] as? Int)
            #expect(file.metadata.offset(of: key) == kvOffset + 8 + key.utf8.count + 4, "\(key)")
            if case .array(let array) = value {
                try checkArray(array, entry, key: key)
            } else {
                #expect(Self.matches(value, entry["value"] as Any), "\(key): \(value) vs \(entry["value"] ?? "nil")")
            }
        }
    }

    private func checkArray(_ array: GGUFArray, _ entry: [String: Any], key: String) throws {
        #expect(array.elementType.description == entry["element_type"] as? String, "\(key)")
        #expect(array.count == entry["count"] as? Int, "\(key)")
        let values = try array.values()
        if let items = entry["items"] as? [Any] {
            #expect(values.count == items.count, "\(key)")
            for (value, item) in zip(values, items) { #expect(Self.matches(value, item), "\(key): \(value) vs \(item)") }
            return
        }
        let first = try #require(entry["first"] as? [Any])
        let last = try #require(entry["last"] as? [Any])
        for (value, item) in zip(values.prefix(first.count), first) { #expect(Self.matches(value, item), "\(key)") }
        for (value, item) in zip(values.suffix(last.count), last) { #expect(Self.matches(value, item), "\(key)") }
        #expect(try Self.fnv1a(array) == entry["fnv1a64"] as? String, "\(key)")
        // The typed decoders agree with values().
        switch array.elementType {
        case .string: #expect(try array.strings().count == array.count)
        case .float32: #expect(try array.floats().map(\.bitPattern) == values.compactMap { if case .float32(let f) = $0 { f.bitPattern } else { nil } })
        default: if array.elementType.isInteger { #expect(try array.ints() == values.compactMap(\.intValue)) }
        }
    }

    /// FNV-1a-64 over the canonical encoding described in the golden script's docstring.
    static func fnv1a(_ array: GGUFArray) throws -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        func feed<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { for byte in $0 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 } }
        }
        if array.elementType == .string {
            for bytes in try array.stringBytes() {
                feed(UInt64(bytes.count))
                for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
            }
        } else {
            for value in try array.values() {
                switch value {
                case .float32(let f): feed(f.bitPattern)
                case .float64(let d): feed(d.bitPattern)
                case .bool(let b): feed(UInt8(b ? 1 : 0))
                case .uint64(let u): feed(u)
                default: feed(Int64(value.intValue ?? 0))
                }
            }
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    static func matches(_ value: GGUFValue, _ json: Any) -> Bool {
        switch value {
        case .string(let s): return json as? String == s
        case .bool(let b): return (json as? NSNumber)?.boolValue == b
        case .float32(let f):
            return ((json as? [String: Any])?["float32_bits"] as? NSNumber)?.uint32Value == f.bitPattern
        case .float64(let d):
            return ((json as? [String: Any])?["float64_bits"] as? NSNumber)?.uint64Value == d.bitPattern
        case .uint64(let u): return (json as? NSNumber)?.uint64Value == u
        case .array: return false
        default:
            guard let int = value.intValue, let number = json as? NSNumber else { return false }
            return number.int64Value == Int64(int)
        }
    }

    @Test(arguments: ["smollm2", "gemma3"])
    func tensorTableMatchesGGUFPy(label: String) throws {
        let url = try TestModels.require(label == "smollm2" ? TestModels.smolLM2 : TestModels.gemma3)
        let expected = try #require(try Self.golden(label)["tensors"] as? [[String: Any]])
        let file = try GGUFFile(contentsOf: url)
        #expect(file.tensors.count == expected.count)
        for (tensor, row) in zip(file.tensors, expected) {
            #expect(tensor.name == row["name"] as? String)
            #expect(tensor.type.description == row["type"] as? String, "\(tensor.name)")
            #expect(Int(tensor.type.rawValue) == row["type_id"] as? Int, "\(tensor.name)")
            #expect(tensor.dimensions == row["dimensions"] as? [Int], "\(tensor.name)")
            #expect(tensor.offset == row["offset"] as? Int, "\(tensor.name)")
            #expect(tensor.byteCount == row["byte_count"] as? Int, "\(tensor.name)")
            #expect(tensor.elementCount == row["element_count"] as? Int, "\(tensor.name)")
            #expect(file.bytes(of: tensor).count == tensor.byteCount)
        }
    }

    /// PyPI gguf 0.19.0 still lists Q8_1 as 4 + 4 + 32 bytes (d and s as f32, a layout ggml dropped);
    /// ggml's `block_q8_1` holds them as two f16 (`ggml_half2 ds`), 36 bytes, as llama.cpp's own gguf-py
    /// tree says. Each entry here is such a documented disagreement, checked to still exist.
    static let ggmlOverrides: [String: (pypi: Int, ggml: Int)] = ["Q8_1": (pypi: 40, ggml: 36)]

    @Test func ggmlTypeSizesMatchGGUFPy() throws {
        let rows = try #require(try Self.golden("quant_sizes")["types"] as? [[String: Any]])
        var seen = Set<GGMLType>()
        for row in rows {
            let name = try #require(row["name"] as? String)
            let id = try #require(row["id"] as? Int)
            guard let type = GGMLType(rawValue: UInt32(id)) else {
                Issue.record("gguf-py type \(name) (id \(id)) is missing from GGMLType")
                continue
            }
            seen.insert(type)
            #expect(type.description == name)
            #expect(type.blockSize == row["block_size"] as? Int, "\(name)")
            if let override = Self.ggmlOverrides[name] {
                #expect(row["type_size"] as? Int == override.pypi, "\(name): gguf-py changed; drop the override")
                #expect(type.bytesPerBlock == override.ggml, "\(name)")
            } else {
                #expect(type.bytesPerBlock == row["type_size"] as? Int, "\(name)")
            }
        }
        #expect(Set(GGMLType.allCases) == seen, "GGMLType lists types gguf-py does not know")
    }
}
