import AsyncHTTPClient
import Foundation
import LocalLM
import LocalLMServer
import LocalLMTestSupport
import NIOCore

/// `locallm serve`'s server, in this process, on a free loopback port, for the length of `body`.
enum LoopbackServer {
    static func with<T>(
        apiKey: String? = nil, maximumBodyBytes: Int = 1 << 20, sequences: Int = 2,
        _ body: (_ baseURL: String) async throws -> T
    ) async throws -> T {
        let model = SystemLanguageModel(
            contentsOf: try TestModels.require(TestModels.qwen05), configuration: .init(contextSize: 1024))
        var configuration = OpenAIServer.Configuration()
        configuration.port = 0
        configuration.apiKey = apiKey
        configuration.maximumBodyBytes = maximumBodyBytes
        configuration.sequencesPerModel = sequences
        let server = try OpenAIServer(models: [ServedModel(name: "qwen", model: model)], configuration: configuration)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let task = Task { try await server.run(handlingSignals: false) { continuation.yield($0) } }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        do {
            let result = try await body("http://127.0.0.1:\(port)/v1")
            task.cancel()
            _ = await task.result
            return result
        } catch {
            task.cancel()
            _ = await task.result
            throw error
        }
    }

    /// A raw request, for what a typed client will not send.
    static func post(_ url: String, body: String, headers: [(String, String)] = []) async throws -> (status: Int, body: String) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
        return (Int(response.status.code), text)
    }

    static func get(_ url: String) async throws -> (status: Int, body: String) {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        return (Int(response.status.code), String(buffer: try await response.body.collect(upTo: 1 << 20)))
    }
}
