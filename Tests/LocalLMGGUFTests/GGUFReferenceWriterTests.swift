import Foundation
import LocalLMGGUF
import LocalLMTestSupport
import Testing

/// A file written by gguf-py's own GGUFWriter (`scripts/goldens/gguf_synthetic.py`): every value type,
/// nested arrays, alignment 64 and five tensor types, read back and compared with what gguf-py reads
/// (or, for nested arrays, with what it wrote).
@Suite struct GGUFReferenceWriterTests {
    @Test func readsEverythingGGUFPyWrote() throws {
        let file = try GGUFFile(contentsOf: Fixtures.url("gguf/all_types.gguf"))
        let expected = try #require(try JSONSerialization.jsonObject(with: Fixtures.data("gguf/all_types.json")) as? [String: Any])
        #expect(Int(file.version) == expected["version"] as? Int)
        #expect(file.alignment == expected["alignment"] as? Int && file.alignment == 64)
        #expect(file.dataOffset == expected["data_offset"] as? Int)
        #expect(file.fileSize == expected["file_size"] as? Int)

        let entries = try #require(expected["metadata"] as? [[String: Any]])
        #expect(file.metadata.keys == entries.compactMap { $0["key"] as? String })
        for entry in entries {
            let key = try #require(entry["key"] as? String)
            let types = try #require(entry["types"] as? [String])
            let value = try #require(file.metadata[key])
            #expect(Self.typeNames(value) == types, "\(key)")
            #expect(try Self.same(value, entry["value"] as Any), "\(key): \(value) vs \(entry["value"] ?? "nil")")
        }

        let tensors = try #require(expected["tensors"] as? [[String: Any]])
        #expect(file.tensors.count == tensors.count)
        for (tensor, row) in zip(file.tensors, tensors) {
            #expect(tensor.name == row["name"] as? String)
            #expect(tensor.type.description == row["type"] as? String, "\(tensor.name)")
            #expect(tensor.dimensions == row["dimensions"] as? [Int], "\(tensor.name)")
            #expect(tensor.offset == row["offset"] as? Int, "\(tensor.name)")
            #expect(tensor.byteCount == row["byte_count"] as? Int, "\(tensor.name)")
            #expect(Self.fnv1a(file.bytes(of: tensor)) == row["fnv1a64"] as? String, "\(tensor.name)")
        }
    }

    /// gguf-py's `types` list: the value type, then element types down through nested arrays.
    static func typeNames(_ value: GGUFValue) -> [String] {
        guard case .array(let array) = value else { return [value.type.description] }
        var names = ["ARRAY", array.elementType.description]
        if array.elementType == .array, case .array(let first)? = try? array.values().first {
            names = ["ARRAY"] + typeNames(.array(first))
        }
        return names
    }

    static func same(_ value: GGUFValue, _ json: Any) throws -> Bool {
        switch value {
        case .array(let array):
            guard let items = json as? [Any] else { return false }
            let values = try array.values()
            guard values.count == items.count else { return false }
            return try zip(values, items).allSatisfy { try same($0, $1) }
        case .string(let s): return json as? String == s
        case .bool(let b): return (json as? NSNumber)?.boolValue == b
        case .float32(let f): return ((json as? [String: Any])?["float32_bits"] as? NSNumber)?.uint32Value == f.bitPattern
        case .float64(let d): return ((json as? [String: Any])?["float64_bits"] as? NSNumber)?.uint64Value == d.bitPattern
        case .uint8(let v): return json as? String == String(v)
        case .int8(let v): return json as? String == String(v)
        case .uint16(let v): return json as? String == String(v)
        case .int16(let v): return json as? String == String(v)
        case .uint32(let v): return json as? String == String(v)
        case .int32(let v): return json as? String == String(v)
        case .uint64(let v): return json as? String == String(v)
        case .int64(let v): return json as? String == String(v)
        }
    }

    static func fnv1a(_ bytes: UnsafeRawBufferPointer) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
