import LocalLMGGUF
import LocalLMTestSupport
import Testing

/// One broken file and the error it must give: the kind and the file offset.
struct MalformedCase: Sendable, CustomTestStringConvertible {
    let name: String
    let bytes: [UInt8]
    let offset: Int
    let matches: @Sendable (GGUFError.Kind) -> Bool
    var testDescription: String { name }

    init(_ name: String, _ output: GGUFWriter.Output, at offset: Int, _ matches: @escaping @Sendable (GGUFError.Kind) -> Bool) {
        self.init(name, output.bytes, at: offset, matches)
    }

    init(_ name: String, _ bytes: [UInt8], at offset: Int, _ matches: @escaping @Sendable (GGUFError.Kind) -> Bool) {
        self.name = name
        self.bytes = bytes
        self.offset = offset
        self.matches = matches
    }
}

/// Every malformed-file case of issue 2, built with the synthetic writer, each asserting a typed error
/// with the right kind at the right offset.
@Suite struct GGUFMalformedTests {
    /// A small valid file to break: a few keys, two tensors.
    static func base() -> GGUFWriter {
        var w = GGUFWriter()
        w.add("general.architecture", .string("llama"))
        w.add("tokens", .array(.string, [.string("abc"), .string("defg")]))
        w.add("n", .uint32(7))
        w.add(.init(name: "a", dimensions: [32, 2], type: .q8_0))
        w.add(.init(name: "b", dimensions: [8], type: .f32))
        return w
    }

    static func patched(_ w: GGUFWriter = base(), _ edit: (inout [UInt8], [String: Int]) -> Void) -> [UInt8] {
        let out = w.build()
        var bytes = out.bytes
        edit(&bytes, out.marks)
        return bytes
    }

    static func with(_ edit: (inout GGUFWriter) -> Void) -> GGUFWriter.Output {
        var w = base()
        edit(&w)
        return w.build()
    }

    static func keysOnly(_ key: String, _ value: GGUFWriter.Value) -> GGUFWriter.Output {
        var w = GGUFWriter()
        w.add(key, value)
        return w.build()
    }

    static var cases: [MalformedCase] {
        let good = base().build()
        let m = good.marks
        var list: [MalformedCase] = []
        func add(_ c: MalformedCase) { list.append(c) }

        // Header.
        add(.init("empty file", [], at: 0) { if case .truncated = $0 { true } else { false } })
        add(.init("3 bytes", Array(good.bytes.prefix(3)), at: 0) { if case .truncated = $0 { true } else { false } })
        add(.init("bad magic", with { $0.magic = Array("GGML".utf8) }, at: 0) { if case .badMagic = $0 { true } else { false } })
        add(.init("version 1", with { $0.version = 1 }, at: 4) { $0 == .unsupportedVersion(1) })
        add(.init("version 4", with { $0.version = 4 }, at: 4) { $0 == .unsupportedVersion(4) })
        add(.init("big-endian version", with { $0.version = UInt32(3).byteSwapped }, at: 4) {
            $0 == .unsupportedVersion(UInt32(3).byteSwapped)
        })
        add(.init("truncated in counts", Array(good.bytes.prefix(12)), at: 8) { if case .truncated = $0 { true } else { false } })

        // Absurd counts and lengths: rejected before anything is allocated from them.
        add(.init("tensor count 2^60", with { $0.tensorCountOverride = 1 << 60 }, at: m["tensor_count"]!) {
            if case .absurdCount(_, 1 << 60, _) = $0 { true } else { false }
        })
        add(.init("kv count UInt64.max", with { $0.keyValueCountOverride = .max }, at: m["kv_count"]!) {
            if case .absurdCount(_, .max, _) = $0 { true } else { false }
        })
        add(.init("string length UInt64.max", patched { b, m in b.patch(UInt64.max, at: m["value:general.architecture"]!) },
                  at: m["value:general.architecture"]!) {
            if case .absurdCount("string length", .max, _) = $0 { true } else { false }
        })
        add(.init("key length 2^20", patched { b, m in b.patch(UInt64(1) << 20, at: m["kv:n"]!) }, at: m["kv:n"]!) {
            $0 == .nameTooLong(what: "key length", length: 1 << 20, limit: 65_535)
        })
        var longName = base()
        longName.tensors[1].name = String(repeating: "x", count: 256)
        let longNameFile = longName.build()
        add(.init("tensor name of 256 bytes", longNameFile, at: longNameFile.marks["tensor:" + longName.tensors[1].name]!) {
            $0 == .nameTooLong(what: "tensor name length", length: 256, limit: 255)
        })
        add(.init("string value past the end", patched { b, m in
            b.patch(UInt64(b.count - m["value:general.architecture"]! - 8 + 1), at: m["value:general.architecture"]!)
        }, at: m["value:general.architecture"]!) { if case .absurdCount("string length", _, _) = $0 { true } else { false } })
        add(.init("array count 2^40", patched { b, m in b.patch(UInt64(1) << 40, at: m["value:tokens"]! + 4) }, at: m["value:tokens"]! + 4) {
            if case .absurdCount("array element count", 1 << 40, _) = $0 { true } else { false }
        })
        let strings = keysOnly("s", .array(.string, [.string("abc"), .string("defg")]))
        add(.init("array string running past the end", Array(strings.bytes.dropLast(2)), at: strings.marks["value:s"]! + 12 + 8 + 3) {
            if case .absurdCount("string length", 4, 2) = $0 { true } else { false }
        })
        let ints = keysOnly("i", .array(.uint32, [.uint32(1), .uint32(2), .uint32(3)]))
        add(.init("fixed-size array running past the end", Array(ints.bytes.dropLast(1)), at: ints.marks["value:i"]! + 4) {
            if case .absurdCount("array element count", 3, 11) = $0 { true } else { false }
        })
        add(.init("kv count one too many", with { $0.tensors = []; $0.keyValueCountOverride = 4 }, at: good.marks["tensor:a"]!) {
            if case .truncated = $0 { true } else { false }
        })

        // Type ids.
        add(.init("unknown value type 13", keysOnly("x", .raw(typeID: 13, payload: [0, 0, 0, 0])), at: 24 + 8 + 1) {
            $0 == .unknownValueType(13)
        })
        let badElement = keysOnly("x", .raw(typeID: GGUFValueType.array.rawValue, payload: [99, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]))
        add(.init("unknown array element type", badElement, at: badElement.marks["value:x"]!) { $0 == .unknownValueType(99) })
        var deep: GGUFWriter.Value = .array(.uint8, [])
        for _ in 0..<8 { deep = .array(.array, [deep]) }
        let deepFile = keysOnly("deep", deep)
        add(.init("arrays nested 9 deep", deepFile, at: deepFile.marks["value:deep"]! + 8 * 12) { $0 == .nestingTooDeep(limit: 8) })
        add(.init("unknown tensor type 4 (removed Q4_2)", patched { b, m in b.patch(UInt32(4), at: m["tensor_type:b"]!) }, at: m["tensor_type:b"]!) {
            $0 == .unknownTensorType(4)
        })
        add(.init("unknown tensor type 1000", patched { b, m in b.patch(UInt32(1000), at: m["tensor_type:a"]!) }, at: m["tensor_type:a"]!) {
            $0 == .unknownTensorType(1000)
        })

        // Duplicates and alignment.
        let duplicateKey = with { $0.add("n", .uint32(8)) }  // marks hold the second "n"
        add(.init("duplicate key", duplicateKey, at: duplicateKey.marks["kv:n"]!) { $0 == .duplicateKey })
        let duplicateTensor = with { $0.add(.init(name: "b", dimensions: [8], type: .f32)) }
        add(.init("duplicate tensor", duplicateTensor, at: duplicateTensor.marks["tensor_offset:b"]!) { $0 == .duplicateTensor })
        for (label, value) in [("0", GGUFWriter.Value.uint32(0)), ("3", .uint32(3)), ("2^31", .uint64(1 << 31)), ("a float", .float32(32))] {
            var w = base()
            w.metadata.insert(("general.alignment", value), at: 0)
            let out = w.build()
            add(.init("alignment \(label)", out, at: out.marks["value:general.alignment"]!) {
                if case .badAlignment = $0 { true } else { false }
            })
        }

        // Tensor infos.
        var five = base()
        five.tensors[1] = .init(name: "b", dimensions: [8, 1, 1, 1, 1], type: .f32)
        add(.init("5 dimensions", five.build(), at: five.build().marks["tensor_dims:b"]!) { $0 == .tooManyDimensions(5) })
        add(.init("n_dims UInt32.max", patched { b, m in b.patch(UInt32.max, at: m["tensor_dims:a"]!) }, at: m["tensor_dims:a"]!) {
            $0 == .tooManyDimensions(.max)
        })
        for (label, dims) in [("2^32 x 2^32", [UInt64(1) << 32, 1 << 32]), ("UInt64.max", [UInt64.max]),
                              ("0 x 2^40 x 2^40", [0, 1 << 40, 1 << 40]), ("f32 bytes 2^62 x 4", [UInt64(1) << 62])] {
            var w = base()
            w.tensors[1] = .init(name: "b", dimensions: dims, typeID: GGMLType.f32.rawValue, data: [], offset: 128)
            let out = w.build()
            add(.init("dimensions \(label)", out, at: out.marks["tensor_dims:b"]!) { $0 == .dimensionOverflow(dims) })
        }
        var partial = base()
        partial.tensors[0] = .init(name: "a", dimensions: [33, 2], typeID: GGMLType.q8_0.rawValue, data: [])
        add(.init("partial block", partial.build(), at: partial.build().marks["tensor_dims:a"]!) {
            $0 == .partialBlock(elements: 33, type: .q8_0)
        })

        // Tensor data placement.
        add(.init("misaligned offset", patched { b, m in b.patch(UInt64(16), at: m["tensor_offset:a"]!) }, at: m["tensor_offset:a"]!) {
            $0 == .tensorMisaligned(offset: 16, alignment: 32)
        })
        add(.init("data truncated by one byte", Array(good.bytes.dropLast()), at: m["tensor_offset:b"]!) {
            if case .tensorOutOfBounds = $0 { true } else { false }
        })
        add(.init("offset far past the end", patched { b, m in b.patch(UInt64(1) << 40, at: m["tensor_offset:b"]!) }, at: m["tensor_offset:b"]!) {
            if case .tensorOutOfBounds = $0 { true } else { false }
        })
        add(.init("offset near UInt64.max", patched { b, m in b.patch(UInt64.max - 31, at: m["tensor_offset:b"]!) }, at: m["tensor_offset:b"]!) {
            if case .tensorOutOfBounds = $0 { true } else { false }
        })
        add(.init("overlapping tensors", patched { b, m in b.patch(UInt64(0), at: m["tensor_offset:b"]!) }, at: m["tensor_offset:b"]!) {
            $0 == .tensorsOverlap(with: "a")
        })
        add(.init("truncated in the tensor table", Array(good.bytes.prefix(m["tensor_type:b"]! + 2)), at: m["tensor_type:b"]!) {
            if case .truncated = $0 { true } else { false }
        })
        return list
    }

    @Test(arguments: cases)
    func rejectsWithTypedErrorAndOffset(_ c: MalformedCase) {
        do {
            let file = try GGUFFile(bytes: c.bytes)
            Issue.record("parsed a malformed file with \(file.tensors.count) tensors")
        } catch {
            #expect(c.matches(error.kind), "unexpected kind: \(error)")
            #expect(error.offset == c.offset, "\(error)")
            #expect(error.description.contains("offset 0x\(String(c.offset, radix: 16)) (\(c.offset))"))
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func theBaseFileIsValid() throws {
        let file = try GGUFFile(bytes: Self.base().build().bytes)
        #expect(file.tensors.count == 2)
    }

    @Test func versionOneMessageSaysWhy() throws {
        var w = Self.base()
        w.version = 1
        let error = try #require(throws: GGUFError.self) { try GGUFFile(bytes: w.build().bytes) }
        #expect(error.description.contains("version 1"))
        w.version = UInt32(3).byteSwapped
        let swapped = try #require(throws: GGUFError.self) { try GGUFFile(bytes: w.build().bytes) }
        #expect(swapped.description.contains("big-endian"))
    }

    @Test func unsupportedTypeIsListedButNamedWhenUsed() throws {
        var w = GGUFWriter()
        w.add(.init(name: "w", dimensions: [256, 2], type: .iq2_XXS))
        let file = try GGUFFile(bytes: w.build().bytes)
        let tensor = try #require(file.tensor(named: "w"))
        #expect(tensor.type == .iq2_XXS && tensor.byteCount == 2 * 66)
        let error = try #require(throws: UnsupportedTypeError.self) { try tensor.type.requireSupported(tensor: tensor.name) }
        #expect(error.description.contains("IQ2_XXS") && error.description.contains("'w'"))
        #expect(throws: Never.self) { try GGMLType.q6_K.requireSupported() }
    }
}
