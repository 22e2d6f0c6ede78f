import Foundation
import LocalLMGGUF
import LocalLMKernels

/// A loaded model: configuration and weights, immutable and shared.
///
/// The weights are views into the GGUF file's single mmap, so loading is cheap and any number of
/// ``ModelSequence``s (each with its own KV cache and scratch) can run on one model concurrently.
public final class TransformerModel: Sendable {
    public let file: GGUFFile
    public let configuration: TransformerConfiguration
    /// Worker threads for matrix products and attention, shared by the model's sequences (the pool
    /// serializes their kernel calls, which on a few cores is faster than oversubscribing them).
    public var threadCount: Int { pool.threadCount }
    let pool: ThreadPool
    let weights: ModelWeights
    /// Steps the sequences that decode at the same time in shared forward passes.
    let batcher = DecodeBatcher()

    /// Opens and maps `url`, reads the architecture's configuration and checks every tensor.
    public convenience init(contentsOf url: URL, threadCount: Int? = nil) throws(RuntimeError) {
        let file: GGUFFile
        do { file = try GGUFFile(contentsOf: url) } catch { throw RuntimeError(error) }
        try self.init(file: file, threadCount: threadCount)
    }

    /// The `general.architecture` values this runtime implements.
    public static var supportedArchitectures: [String] { ArchitectureRegistry.names }

    public init(file: GGUFFile, threadCount: Int? = nil) throws(RuntimeError) {
        // The architecture first: for an unknown one, that is the reason, not a tensor it names otherwise.
        guard let name = file.metadata.architecture else { throw .missingArchitecture }
        guard ArchitectureRegistry.names.contains(name) else {
            throw .unknownArchitecture(name, supported: ArchitectureRegistry.names)
        }
        guard let embedding = file.tensor(named: "token_embd.weight") else { throw .missingTensor("token_embd.weight") }
        guard embedding.dimensions.count == 2, embedding.dimensions[1] > 0 else {
            throw .tensorShape(name: "token_embd.weight", expected: [-1, -1], actual: embedding.dimensions)
        }
        let configuration = try ArchitectureRegistry.configuration(for: file.metadata, vocabularySize: embedding.dimensions[1])
        self.file = file
        self.configuration = configuration
        self.weights = try ModelWeights(file: file, configuration: configuration)
        self.pool = ThreadPool(threadCount: max(1, min(threadCount ?? ThreadPool.coreCount, 256)))
    }

    /// A new sequence with an empty cache of `contextSize` positions.
    public func makeSequence(contextSize: Int = 4096, cacheType: KVCacheStorage = .f16,
                             batchSize: Int = ModelSequence.maximumBatchSize,
                             batchArithmetic: BatchArithmetic = .fast) throws(RuntimeError) -> ModelSequence {
        try ModelSequence(model: self, contextSize: contextSize, cacheType: cacheType, batchSize: batchSize,
                          batchArithmetic: batchArithmetic)
    }

    /// Decode passes run so far and the sequence steps they computed (their ratio is the mean batch).
    public var decodeStatistics: (passes: Int, steps: Int) {
        let (passes, rows) = batcher.statistics
        return (passes, rows)
    }

    /// Bytes of all the weights (what decoding streams per token, plus the embeddings).
    public var weightBytes: Int {
        file.tensors.reduce(0) { $0 + $1.byteCount }
    }

    /// Bytes one decode step reads with `cachedPositions` positions in a cache of `kvBytesPerPosition`:
    /// every weight but the embedding table (of which it reads one row; all of it when the output
    /// matrix is tied to it), plus the KV cache. Decode speed is bounded by this over the read bandwidth.
    package func decodeBytesPerToken(kvBytesPerPosition: Int, cachedPositions: Int) -> Double {
        let embedding = file.tensor(named: "token_embd.weight")?.byteCount ?? 0
        let tied = file.tensor(named: "output.weight") == nil
        return Double(weightBytes - (tied ? 0 : embedding)) + Double(kvBytesPerPosition * cachedPositions)
    }
}
