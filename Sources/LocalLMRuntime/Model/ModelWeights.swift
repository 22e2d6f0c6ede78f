import LocalLMGGUF
import LocalLMKernels

/// One decoder layer's tensors. Matrices are views into the mmapped file; small vectors (norms,
/// biases) are copied out as Float.
struct LayerWeights: Sendable {
    var attentionNorm: [Float]          // [width]
    var query: Linear             // [heads·keyLength × width]
    var key: Linear               // [kvHeads·keyLength × width]
    var value: Linear             // [kvHeads·valueLength × width]
    var queryBias: [Float]?             // [heads·keyLength]
    var keyBias: [Float]?               // [kvHeads·keyLength]
    var valueBias: [Float]?             // [kvHeads·valueLength]
    var queryNorm: [Float]?             // [keyLength]
    var keyNorm: [Float]?               // [keyLength]
    var attentionOutput: Linear   // [width × heads·valueLength]
    var attentionPostNorm: [Float]?     // [width]
    var ffnNorm: [Float]                // [width]
    var gate: Linear              // [ff × width]
    var up: Linear                // [ff × width]
    var down: Linear              // [width × ff]
    var ffnPostNorm: [Float]?           // [width]

    /// Whether any of the layer's matrices needs the Q4_1/Q5_1 block-min correction in batches.
    var hasBlockMins: Bool {
        [query, key, value, attentionOutput, gate, up, down].contains { $0.hasBlockMins }
    }
}

/// All the weights of a model, checked against its configuration.
struct ModelWeights: Sendable {
    var tokenEmbedding: WeightMatrix    // [vocab × width]
    var outputNorm: [Float]             // [width]
    /// The LM head; the token embedding itself when the file has no `output.weight` (tied).
    var output: Linear                  // [vocab × width]
    var layers: [LayerWeights]

    init(file: GGUFFile, configuration c: TransformerConfiguration) throws(RuntimeError) {
        let loader = TensorLoader(file: file)
        tokenEmbedding = try loader.matrix("token_embd.weight", rows: c.vocabularySize, columns: c.width)
        outputNorm = try loader.vector("output_norm.weight", count: c.width)
        if file.tensor(named: "output.weight") != nil {
            output = Linear(try loader.matrix("output.weight", rows: c.vocabularySize, columns: c.width))
        } else {
            output = Linear(tokenEmbedding)
        }
        let qWidth = c.headCount * c.keyLength
        let kWidth = c.kvHeadCount * c.keyLength
        let vWidth = c.kvHeadCount * c.valueLength
        var layers: [LayerWeights] = []
        for i in 0..<c.layerCount {
            let p = "blk.\(i)."
            layers.append(LayerWeights(
                attentionNorm: try loader.vector(p + "attn_norm.weight", count: c.width),
                query: try loader.linear(p + "attn_q.weight", rows: qWidth, columns: c.width),
                key: try loader.linear(p + "attn_k.weight", rows: kWidth, columns: c.width),
                value: try loader.linear(p + "attn_v.weight", rows: vWidth, columns: c.width),
                queryBias: c.hasQKVBias ? try loader.vector(p + "attn_q.bias", count: qWidth) : nil,
                keyBias: c.hasQKVBias ? try loader.vector(p + "attn_k.bias", count: kWidth) : nil,
                valueBias: c.hasQKVBias ? try loader.vector(p + "attn_v.bias", count: vWidth) : nil,
                queryNorm: c.hasQKNorm ? try loader.vector(p + "attn_q_norm.weight", count: c.keyLength) : nil,
                keyNorm: c.hasQKNorm ? try loader.vector(p + "attn_k_norm.weight", count: c.keyLength) : nil,
                attentionOutput: try loader.linear(p + "attn_output.weight", rows: c.width,
                                                   columns: c.headCount * c.valueLength),
                attentionPostNorm: c.hasPostNorms ? try loader.vector(p + "post_attention_norm.weight", count: c.width) : nil,
                ffnNorm: try loader.vector(p + "ffn_norm.weight", count: c.width),
                gate: try loader.linear(p + "ffn_gate.weight", rows: c.feedForwardLength, columns: c.width),
                up: try loader.linear(p + "ffn_up.weight", rows: c.feedForwardLength, columns: c.width),
                down: try loader.linear(p + "ffn_down.weight", rows: c.width, columns: c.feedForwardLength),
                ffnPostNorm: c.hasPostNorms ? try loader.vector(p + "post_ffw_norm.weight", count: c.width) : nil
            ))
        }
        self.layers = layers
    }
}

/// Looks tensors up by name and checks their shape and type.
private struct TensorLoader {
    let file: GGUFFile

    func info(_ name: String, dimensions: [Int]) throws(RuntimeError) -> GGUFTensorInfo {
        guard let tensor = file.tensor(named: name) else { throw .missingTensor(name) }
        guard tensor.dimensions == dimensions else {
            throw .tensorShape(name: name, expected: dimensions, actual: tensor.dimensions)
        }
        return tensor
    }

    func matrix(_ name: String, rows: Int, columns: Int) throws(RuntimeError) -> WeightMatrix {
        let tensor = try info(name, dimensions: [columns, rows])
        let bytes = file.bytes(of: tensor)
        guard let base = bytes.baseAddress, WeightMatrix.isWeightType(tensor.type) else {
            throw .unsupportedTensorType(name: name, type: tensor.type)
        }
        do {
            let matrix = try WeightMatrix(type: tensor.type, rows: rows, columns: columns, data: base)
            guard matrix.byteCount <= bytes.count else {
                throw RuntimeError.tensorShape(name: name, expected: [columns, rows], actual: tensor.dimensions)
            }
            return matrix
        } catch let error as RuntimeError {
            throw error
        } catch {
            throw .unsupportedTensorType(name: name, type: tensor.type)
        }
    }

    func linear(_ name: String, rows: Int, columns: Int) throws(RuntimeError) -> Linear {
        Linear(try matrix(name, rows: rows, columns: columns))
    }

    func vector(_ name: String, count: Int) throws(RuntimeError) -> [Float] {
        let tensor = try info(name, dimensions: [count])
        guard tensor.type == .f32 || tensor.type == .f16 || tensor.type == .bf16 else {
            throw .unsupportedTensorType(name: name, type: tensor.type)
        }
        let bytes = file.bytes(of: tensor)
        guard let base = bytes.baseAddress, let needed = tensor.type.rowBytes(elements: count), needed <= bytes.count else {
            throw .tensorShape(name: name, expected: [count], actual: tensor.dimensions)
        }
        return [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            Kernels.dequantize(type: tensor.type, base, count: count, into: buffer.baseAddress!)
            initialized = count
        }
    }
}
