#if canImport(Glibc)
import Glibc
#endif
import Foundation
import LocalLMGGUF
import LocalLMTestSupport
import Testing

/// Seeded random damage to synthetic files and to the header region of a real model: every mutant must
/// parse or give a ``GGUFError`` (a crash would kill the test process). Seeds are fixed, so a failure
/// reproduces; the mutant's seed and edits are in the failure message.
@Suite struct GGUFMutationTests {
    #if DEBUG
    static let syntheticMutants = 2000
    static let realMutants = 300
    #else
    static let syntheticMutants = 2000
    static let realMutants = 2000
    #endif

    /// SplitMix64: small, seedable, good enough to pick bytes.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }
    }

    /// Values that hit edge cases when they land on a count, length, type id or offset.
    static let interesting: [UInt64] = [0, 1, 2, 3, 4, 5, 8, 12, 13, 31, 32, 33, 255, 256, 0x7FFF_FFFF, 0x8000_0000,
                                        0xFFFF_FFFF, 1 << 32, 1 << 40, 1 << 62, UInt64(Int64.max), UInt64.max]

    /// One edit: overwrite `bytes` at `offset`.
    struct Edit: CustomStringConvertible {
        var offset: Int
        var bytes: [UInt8]
        var description: String { "\(bytes.count)@\(offset)" }
    }

    static func randomEdits(_ rng: inout Random, size: Int, pick: (inout Random) -> Int) -> [Edit] {
        (0..<(1 + rng.below(3))).map { _ in
            let offset = pick(&rng)
            switch rng.below(4) {
            case 0: return Edit(offset: offset, bytes: [UInt8(truncatingIfNeeded: rng.next())])
            case 1: return Edit(offset: offset, bytes: [rng.below(2) == 0 ? 0 : 0xFF])
            case 2:
                let value = interesting[rng.below(interesting.count)]
                let width = [1, 2, 4, 8][rng.below(4)]
                return Edit(offset: offset, bytes: (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
            default:
                return Edit(offset: offset, bytes: [UInt8(1) << UInt8(rng.below(8))])  // XOR mask, see apply
            }
        }
    }

    /// Parses, then reads everything a parse promises is readable.
    static func exercise(_ file: GGUFFile, decodeLargeArrays: Bool) throws(GGUFError) {
        for key in file.metadata.keys {
            guard case .array(let array)? = file.metadata[key] else { continue }
            guard decodeLargeArrays || array.count <= 64 else { continue }
            _ = try array.values()
            if array.elementType == .string { _ = try array.stringBytes() }
        }
        var checksum = 0
        for tensor in file.tensors {
            let data = file.bytes(of: tensor)
            if let first = data.first, let last = data.last { checksum &+= Int(first) &+ Int(last) }
            _ = tensor.elementCount
        }
        _ = checksum
    }

    static func checkOutcome(_ result: () throws(GGUFError) -> Void, size: Int, context: @autoclosure () -> String) {
        do {
            try result()
        } catch {
            #expect(error.offset >= 0 && error.offset <= max(size, 0) + 1 << 31, "\(context()): \(error)")
            #expect(!error.description.isEmpty)
        }
    }

    @Test func syntheticFiles() {
        var writer = GGUFFileTests.sampleWriter()
        writer.alignment = 64
        writer.writeAlignmentKey = true
        let original = writer.build().bytes
        var rng = Random(state: 0x5EED_0001)
        var parsed = 0
        for mutant in 0..<Self.syntheticMutants {
            var bytes = original
            let edits = Self.randomEdits(&rng, size: bytes.count) { $0.below(original.count) }
            Self.apply(edits, to: &bytes)
            if rng.below(8) == 0 { bytes.removeLast(rng.below(bytes.count)) }
            Self.checkOutcome({ () throws(GGUFError) in
                let file = try GGUFFile(bytes: bytes)
                parsed += 1
                try Self.exercise(file, decodeLargeArrays: true)
            }, size: bytes.count, context: "mutant \(mutant) \(edits)")
        }
        // Both outcomes occur: the mutations neither always break nor never break the file.
        #expect(parsed > 0 && parsed < Self.syntheticMutants, "\(parsed) of \(Self.syntheticMutants) parsed")
    }

    static func apply(_ edits: [Edit], to bytes: inout [UInt8]) {
        for edit in edits {
            for (i, byte) in edit.bytes.enumerated() where edit.offset + i < bytes.count {
                bytes[edit.offset + i] = edit.bytes.count == 1 && byte.nonzeroBitCount == 1 ? bytes[edit.offset + i] ^ byte : byte
            }
        }
    }

    /// Damages a temporary copy of SmolLM2 in place (pwrite), maps and parses it, then restores it:
    /// the real header region (1.7 MB of metadata and a 272-entry tensor table) without copying 98 MB
    /// per mutant. Edits land in the first 2 KiB (header and small keys), in the last 32 KiB before the
    /// data (the tensor table), or anywhere in the header region.
    @Test func realModelHeaderRegion() throws {
        let source = try TestModels.require(TestModels.smolLM2)
        let pristine = try GGUFFile(contentsOf: source)
        let headerSize = pristine.dataOffset
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("mutant-\(UUID()).gguf")
        try FileManager.default.copyItem(at: source, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        let fd = open(copy.path, O_RDWR)
        try #require(fd >= 0)
        defer { close(fd) }
        let header = [UInt8](try Data(contentsOf: source, options: .alwaysMapped).prefix(headerSize))

        var rng = Random(state: 0x5EED_0002)
        var parsed = 0
        for mutant in 0..<Self.realMutants {
            let edits = Self.randomEdits(&rng, size: headerSize) { rng in
                switch rng.below(3) {
                case 0: rng.below(2048)
                case 1: headerSize - 1 - rng.below(32768)
                default: rng.below(headerSize)
                }
            }
            var damaged = header
            Self.apply(edits, to: &damaged)
            let touched = Set(edits.flatMap { $0.offset..<min($0.offset + $0.bytes.count, headerSize) })
            for offset in touched { Self.write(fd, damaged[offset], at: offset) }
            Self.checkOutcome({ () throws(GGUFError) in
                let file = try GGUFFile(contentsOf: copy)
                parsed += 1
                try Self.exercise(file, decodeLargeArrays: false)
            }, size: pristine.fileSize, context: "mutant \(mutant) \(edits)")
            for offset in touched { Self.write(fd, header[offset], at: offset) }
        }
        #expect(parsed > 0 && parsed < Self.realMutants, "\(parsed) of \(Self.realMutants) parsed")
        // The copy was restored after every mutant.
        #expect(try GGUFFile(contentsOf: copy).tensors == pristine.tensors)
    }

    /// Truncations of the real header region at random lengths (in memory: just the prefix).
    @Test func realModelTruncations() throws {
        let source = try TestModels.require(TestModels.smolLM2)
        let headerSize = try GGUFFile(contentsOf: source).dataOffset
        let header = [UInt8](try Data(contentsOf: source, options: .alwaysMapped).prefix(headerSize))
        var rng = Random(state: 0x5EED_0003)
        for _ in 0..<100 {
            let length = rng.below(2) == 0 ? rng.below(4096) : rng.below(headerSize)
            let error = try #require(throws: GGUFError.self) { try GGUFFile(bytes: Array(header.prefix(length))) }
            #expect(error.offset <= length, "\(error)")
        }
    }

    static func write(_ fd: Int32, _ byte: UInt8, at offset: Int) {
        var value = byte
        let written = pwrite(fd, &value, 1, off_t(offset))
        #expect(written == 1)
    }
}
