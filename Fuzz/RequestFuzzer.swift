// libFuzzer target: the server's request decoder (`ChatCompletionRequest.decode(body:)`, what
// `locallm serve` runs on every `POST /v1/chat/completions` body) on arbitrary bytes. Checked: it
// returns a request or throws its typed error, and a request it accepts writes back (as the remote
// backend writes requests) to a body it accepts again, unchanged.
import Foundation
import LocalLMOpenAIWire

private let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return encoder
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let request = try? ChatCompletionRequest.decode(body: bytes) else { return 0 }
    let written: Data
    do {
        written = try encoder.encode(request)
    } catch {
        fatalError("an accepted request cannot be written: \(error)")
    }
    let again: ChatCompletionRequest
    do {
        again = try ChatCompletionRequest.decode(body: Array(written))
    } catch {
        fatalError("the written request is refused: \(error.message)\n\(String(decoding: written, as: UTF8.self))")
    }
    guard let rewritten = try? encoder.encode(again), rewritten == written else {
        fatalError("the request changed on a round trip: \(String(decoding: written, as: UTF8.self))")
    }
    return 0
}
