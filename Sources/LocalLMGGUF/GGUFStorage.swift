#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes of one GGUF file: a read-only memory map, or an owned buffer for in-memory files.
///
/// Everything that hands out views into the file (``GGUFFile``, lazy ``GGUFArray``s) holds a reference
/// to this object, so the map stays alive as long as any view's owner does.
/// `@unchecked Sendable`: the pointer is never written through after init and is released only in deinit.
final class GGUFStorage: @unchecked Sendable {
    let base: UnsafeRawPointer
    let count: Int
    private let isMapped: Bool

    /// Copies `bytes` into an owned, 16-byte-aligned buffer.
    init(copying bytes: [UInt8]) {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { source in
            if let start = source.baseAddress { buffer.copyMemory(from: start, byteCount: source.count) }
        }
        base = UnsafeRawPointer(buffer)
        count = bytes.count
        isMapped = false
    }

    /// Maps the file at `path` read-only. An empty file gets an owned empty buffer (mmap rejects length 0).
    init(mapping path: String) throws(GGUFError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw GGUFError(.io("cannot open \(path): \(Self.errnoText())"), at: 0) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw GGUFError(.io("cannot stat \(path): \(Self.errnoText())"), at: 0) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw GGUFError(.io("\(path) is not a regular file"), at: 0) }
        let size = Int(info.st_size)
        guard size > 0 else {
            base = UnsafeRawPointer(UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 16))
            count = 0
            isMapped = false
            return
        }
        guard let map = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), map != MAP_FAILED else {
            throw GGUFError(.io("cannot map \(path): \(Self.errnoText())"), at: 0)
        }
        base = UnsafeRawPointer(map)
        count = size
        isMapped = true
    }

    deinit {
        if isMapped {
            munmap(UnsafeMutableRawPointer(mutating: base), count)
        } else {
            UnsafeMutableRawPointer(mutating: base).deallocate()
        }
    }

    private static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}
