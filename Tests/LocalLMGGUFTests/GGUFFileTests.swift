import Foundation
import LocalLMGGUF
import LocalLMTestSupport
import Testing

/// Well-formed synthetic files: every value type, nested arrays, accessors, tensor table and data views.
@Suite struct GGUFFileTests {
    static func sampleWriter(version: UInt32 = 3) -> GGUFWriter {
        var w = GGUFWriter()
        w.version = version
        w.add("general.architecture", .string("llama"))
        w.add("general.name", .string("Tiny ✓"))
        w.add("llama.block_count", .uint32(30))
        w.add("u8", .uint8(200))
        w.add("i8", .int8(-5))
        w.add("u16", .uint16(65000))
        w.add("i16", .int16(-30000))
        w.add("i32", .int32(-2_000_000_000))
        w.add("u64", .uint64(UInt64.max))
        w.add("i64", .int64(Int64.min))
        w.add("f32", .float32(1e-5))
        w.add("f64", .float64(10000.5))
        w.add("yes", .bool(true))
        w.add("no", .bool(false))
        w.add("tokens", .array(.string, [.string("a"), .stringBytes([0xFF, 0x41]), .string("")]))
        w.add("scores", .array(.float32, [.float32(-1.5), .float32(0), .float32(2.25)]))
        w.add("types", .array(.int32, [.int32(1), .int32(-2), .int32(3)]))
        w.add("wide", .array(.uint64, [.uint64(UInt64.max)]))
        w.add("nested", .array(.array, [.array(.uint8, [.uint8(1), .uint8(2)]), .array(.string, [.string("x")])]))
        w.add("empty", .array(.float64, []))
        w.add(.init(name: "token_embd.weight", dimensions: [64, 3], type: .q8_0))
        w.add(.init(name: "norm.weight", dimensions: [64], type: .f32))
        w.add(.init(name: "blk.0.ffn.weight", dimensions: [256, 2, 1], type: .q4_K))
        return w
    }

    @Test(arguments: [UInt32(2), 3])
    func readsEveryValueType(version: UInt32) throws {
        let file = try GGUFFile(bytes: Self.sampleWriter(version: version).build().bytes)
        let m = file.metadata
        #expect(file.version == version)
        #expect(m.keys.first == "general.architecture" && m.keys.count == 20)
        #expect(m.architecture == "llama")
        #expect(try m.string("general.name") == "Tiny ✓")
        #expect(try m.int(m.archKey("block_count")) == 30)
        #expect(m["u8"] == .uint8(200))
        #expect(try m.int("i8") == -5)
        #expect(try m.int("u16") == 65000)
        #expect(try m.int("i16") == -30000)
        #expect(try m.int("i32") == -2_000_000_000)
        #expect(m["u64"] == .uint64(.max))
        #expect(try m.int("i64") == Int(Int64.min))
        #expect(m["f32"] == .float32(1e-5))
        #expect(try m.float("f64") == 10000.5)
        #expect(try m.float("llama.block_count") == 30)
        #expect(try m.bool("yes") == true)
        #expect(try m.bool("no") == false)
        #expect(try m.string("missing") == nil)

        let tokens = try #require(try m.array("tokens"))
        #expect(tokens.elementType == .string && tokens.count == 3)
        #expect(try tokens.stringBytes() == [[0x61], [0xFF, 0x41], []])
        #expect(try tokens.strings() == ["a", "\u{FFFD}A", ""])
        #expect(try m.array("scores")?.floats() == [-1.5, 0, 2.25])
        #expect(try m.array("types")?.ints() == [1, -2, 3])
        #expect(try m.array("empty")?.floats() == [])
        let nested = try #require(try m.array("nested")).values()
        guard nested.count == 2, case .array(let inner0) = nested[0], case .array(let inner1) = nested[1] else {
            Issue.record("nested arrays not read: \(nested)")
            return
        }
        #expect(try inner0.ints() == [1, 2])
        #expect(try inner1.strings() == ["x"])
    }

    @Test func typedAccessorsReportMismatchWithKeyAndOffset() throws {
        let built = Self.sampleWriter().build()
        let m = try GGUFFile(bytes: built.bytes).metadata
        let error = try #require(throws: GGUFError.self) { try m.int("general.name") }
        #expect(error.kind == .typeMismatch(expected: "an integer", actual: .string))
        #expect(error.key == "general.name")
        #expect(error.offset == built.marks["value:general.name"])
        #expect(throws: GGUFError.self) { try m.string("u8") }
        #expect(throws: GGUFError.self) { try m.bool("u8") }
        #expect(throws: GGUFError.self) { try m.array("u8") }
        #expect(throws: GGUFError.self) { try m.float("yes") }
        #expect(throws: GGUFError.self) { try m.array("tokens")?.floats() }
        #expect(throws: GGUFError.self) { try m.array("scores")?.strings() }
        #expect(throws: GGUFError.self) { try m.array("scores")?.ints() }
        let big = try #require(throws: GGUFError.self) { try m.int("u64") }
        guard case .valueOutOfRange = big.kind else { Issue.record("\(big)"); return }
        #expect(throws: GGUFError.self) { try m.array("wide")?.ints() }
    }

    @Test func tensorTableAndDataViews() throws {
        let writer = Self.sampleWriter()
        let built = writer.build()
        let file = try GGUFFile(bytes: built.bytes)
        #expect(file.alignment == 32)
        #expect(file.dataOffset == built.marks["data"])
        #expect(file.dataOffset % 32 == 0)
        #expect(file.tensors.map(\.name) == ["token_embd.weight", "norm.weight", "blk.0.ffn.weight"])
        let embd = try #require(file.tensor(named: "token_embd.weight"))
        #expect(embd.dimensions == [64, 3] && embd.type == .q8_0)
        #expect(embd.elementCount == 192 && embd.byteCount == 6 * 34)
        #expect(embd.rowLength == 64 && embd.rowCount == 3)
        let ffn = try #require(file.tensor(named: "blk.0.ffn.weight"))
        #expect(ffn.byteCount == 2 * 144 && ffn.offset % 32 == 0)
        #expect(file.tensor(named: "nope") == nil)
        for (info, source) in zip(file.tensors, writer.tensors) {
            #expect(Array(file.bytes(of: info)) == source.data, "\(info.name)")
        }
        #expect(file.parameterCount == 192 + 64 + 512)
        #expect(file.fileSize == built.bytes.count)
    }

    @Test func customAlignment() throws {
        var w = Self.sampleWriter()
        w.alignment = 64
        w.writeAlignmentKey = true
        let file = try GGUFFile(bytes: w.build().bytes)
        #expect(file.alignment == 64 && file.dataOffset % 64 == 0)
        #expect(file.tensors.allSatisfy { $0.offset % 64 == 0 })
        #expect(Array(file.bytes(of: file.tensors[2])) == w.tensors[2].data)
    }

    @Test func arraysOutliveTheFileAndCompareByContent() throws {
        let bytes = Self.sampleWriter().build().bytes
        var tokens: GGUFArray?
        do {
            let file = try GGUFFile(bytes: bytes)
            tokens = try file.metadata.array("tokens")
        }
        #expect(try tokens?.strings() == ["a", "\u{FFFD}A", ""])
        let again = try GGUFFile(bytes: bytes).metadata.array("tokens")
        #expect(tokens == again)
        #expect(try GGUFFile(bytes: bytes).metadata.array("scores") != again)
    }

    @Test func noTensorsNoDataSection() throws {
        var w = GGUFWriter()
        w.add("general.architecture", .string("none"))
        let file = try GGUFFile(bytes: w.build().bytes)
        #expect(file.tensors.isEmpty && file.metadata.keys == ["general.architecture"])
    }

    @Test func mapsFilesFromDisk() throws {
        let bytes = Self.sampleWriter().build().bytes
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("gguf-\(UUID()).gguf")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let file = try GGUFFile(contentsOf: url)
        #expect(file.fileSize == bytes.count && file.tensors.count == 3)
        let missing = try #require(throws: GGUFError.self) {
            try GGUFFile(contentsOf: url.appendingPathExtension("missing"))
        }
        guard case .io = missing.kind else { Issue.record("\(missing)"); return }
        #expect(throws: GGUFError.self) { try GGUFFile(contentsOf: FileManager.default.temporaryDirectory) }
    }
}
