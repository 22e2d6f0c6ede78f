// libFuzzer target: a chat template from arbitrary bytes, parsed and rendered with a fixed context
// (FuzzContext.chat). Errors must be typed JinjaErrors pointing inside the template.
import LocalLMJinja

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJinja(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let source = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    // The product's default limits, except output: 1 MiB keeps each run short; the step limit is the
    // one a hostile template meets in a session.
    let options = JinjaRenderOptions(maxOutputBytes: 1 << 20)
    do {
        _ = try ChatTemplate(source: source).render(context: FuzzContext.chat, options: options)
    } catch {
        // jinja2 counts "\r\n", "\r" and "\n" as line breaks: at most one line per CR or LF.
        let lines = source.utf8.reduce(1) { $1 == 0x0A || $1 == 0x0D ? $0 + 1 : $0 }
        if error.message.isEmpty || !(0...lines).contains(error.line) {
            fatalError("a JinjaError without a message or outside the template (\(lines) lines): \(error)")
        }
    }
    return 0
}
