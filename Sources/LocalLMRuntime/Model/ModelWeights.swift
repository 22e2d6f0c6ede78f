import LocalLMGGUF
import LocalLMKernels

/// How a layer projects its input to queries, keys and values.
enum QKVProjection: Sendable {
    /// Three matrices (`attn_q`, `attn_k`, `attn_v`).
    case separate(query: Linear, key: Linear, value: Linear)
    /// One matrix whose rows are the queries, then the keys, then the values (`attn_qkv`: phi3, and
    /// any architecture whose converter fused them).
    case fused(Linear)
    /// Queries only: the layer attends to another layer's cached keys and values (gemma4).
    case queryOnly(Linear)

    var matrices: [Linear] {
        switch self {
        case .separate(let q, let k, let v): [q, k, v]
        case .fused(let qkv): [qkv]
        case .queryOnly(let q): [q]
        }
    }
}

/// How a layer computes its FFN's gate and up projections.
enum GateUpProjection: Sendable {
    /// Two matrices (`ffn_gate`, `ffn_up`).
    case separate(gate: Linear, up: Linear)
    /// One `ffn_up` of 2·ff rows: the gate's rows, then the up rows (phi3).
    case fused(Linear)

    var matrices: [Linear] {
        switch self {
        case .separate(let g, let u): [g, u]
        case .fused(let gateUp): [gateUp]
        }
    }
}

/// A layer's routed experts (qwen3moe): a router and, per expert, its own gate, up and down matrices,
/// views into the file's 3-D expert tensors, so that a token reads only its chosen experts' weights.
struct MixtureOfExperts: Sendable {
    var router: Linear                  // [experts × width]
    var gate: [Linear]                  // per expert [ff × width]
    var up: [Linear]                    // per expert [ff × width]
    var down: [Linear]                  // per expert [width × ff]
}

/// How a layer computes its feed-forward block.
enum FeedForward: Sendable {
    /// One gated FFN.
    case dense(gateUp: GateUpProjection, down: Linear)
    /// Top-k routed experts.
    case experts(MixtureOfExperts)

    var matrices: [Linear] {
        switch self {
        case .dense(let gateUp, let down): gateUp.matrices + [down]
        case .experts(let moe): [moe.router] + moe.gate + moe.up + moe.down
        }
    }
}

/// An attention block's tensors.
struct AttentionWeights: Sendable {
    var qkv: QKVProjection
    var queryBias: [Float]?             // [heads·keyLength]
    var keyBias: [Float]?               // [kvHeads·keyLength]
    var valueBias: [Float]?             // [kvHeads·valueLength]
    var queryNorm: [Float]?             // [keyLength], or [heads·keyLength] for a projection-wide norm
    var keyNorm: [Float]?               // [keyLength], or [kvHeads·keyLength]
    var output: Linear                  // [width × heads·valueLength]
    var outputBias: [Float]?            // [width]

    var matrices: [Linear] { qkv.matrices + [output] }
}

/// A gated short-convolution block's tensors (lfm2).
struct ShortConvolution: Sendable {
    /// `[3·width × width]`: the rows of B, then C, then x.
    var inputProjection: Linear
    /// `[width × taps]`: each channel's taps, oldest position first.
    var taps: [Float]
    var outputProjection: Linear        // [width × width]

    var matrices: [Linear] { [inputProjection, outputProjection] }
}

/// What mixes a layer's positions.
enum TokenMixer: Sendable {
    case attention(AttentionWeights)
    case shortConvolution(ShortConvolution)

    var matrices: [Linear] {
        switch self {
        case .attention(let a): a.matrices
        case .shortConvolution(let conv): conv.matrices
        }
    }
}

/// One decoder layer's tensors. Matrices are views into the mmapped file; small vectors (norms,
/// biases) are copied out as Float.
struct LayerWeights: Sendable {
    var attentionNorm: [Float]?         // [width]; nil when the architecture has no input norms (olmo2)
    var mixer: TokenMixer
    var attentionPostNorm: [Float]?     // [width]
    var ffnNorm: [Float]?               // [width]
    var ffn: FeedForward                // gate-up [ff × width] each, or [2·ff × width]; down [width × ff]
    var gateBias: [Float]?              // [ff]
    var upBias: [Float]?                // [ff]
    var downBias: [Float]?              // [width]
    var ffnPostNorm: [Float]?           // [width]
    /// Per-layer embedding (gemma4): gate `[ple × width]`, projection `[width × ple]`, its norm `[width]`.
    var perLayerGate: Linear?
    var perLayerProjection: Linear?
    var perLayerPostNorm: [Float]?
    /// Multiplies the layer's output (gemma4 `layer_output_scale`).
    var outputScale: Float?

    /// Whether any of the layer's matrices needs the Q4_1/Q5_1 block-min correction in batches.
    var hasBlockMins: Bool {
        (mixer.matrices + ffn.matrices + [perLayerGate, perLayerProjection].compactMap { $0 }).contains { $0.hasBlockMins }
    }
}

/// All the weights of a model, checked against its configuration.
struct ModelWeights: Sendable {
    var tokenEmbedding: WeightMatrix    // [vocab × width]
    var outputNorm: [Float]             // [width]
    /// The LM head; the token embedding itself when the file has no `output.weight` (tied).
    var output: Linear                  // [vocab × width]
    var layers: [LayerWeights]
    /// RoPE frequency divisors per rotated pair (`rope_factors_short` / `rope_factors_long`, or
    /// `rope_freqs` for both): LongRoPE (phi3) and Llama 3.1-style scaling. Nil when absent.
    var ropeFactorsShort: [Float]?
    var ropeFactorsLong: [Float]?
    /// Per-layer embeddings (gemma4): token rows `[vocab × layers·ple]`, the projection of the scaled
    /// embedding `[layers·ple × width]` and its norm `[ple]`.
    var perLayerTokenEmbedding: WeightMatrix?
    var perLayerModelProjection: Linear?
    var perLayerProjectionNorm: [Float]?

    init(file: GGUFFile, configuration c: TransformerConfiguration) throws(RuntimeError) {
        let loader = TensorLoader(file: file)
        tokenEmbedding = try loader.matrix("token_embd.weight", rows: c.vocabularySize, columns: c.width)
        outputNorm = try loader.vector(c.outputNormTensor, count: c.width)
        if file.tensor(named: "output.weight") != nil {
            output = Linear(try loader.matrix("output.weight", rows: c.vocabularySize, columns: c.width))
        } else {
            output = Linear(tokenEmbedding)
        }
        let pairs = c.ropeDimensions / 2
        if file.tensor(named: "rope_freqs.weight") != nil {
            ropeFactorsShort = try loader.vector("rope_freqs.weight", count: pairs)
            ropeFactorsLong = ropeFactorsShort
        } else {
            ropeFactorsShort = try loader.optionalVector("rope_factors_short.weight", count: pairs)
            ropeFactorsLong = try loader.optionalVector("rope_factors_long.weight", count: pairs)
        }
        for factors in [ropeFactorsShort, ropeFactorsLong] {
            if let factors, factors.contains(where: { !($0.isFinite && $0 > 0) }) {
                throw .invalidValue(key: "rope_factors", reason: "RoPE frequency factors must be positive and finite")
            }
        }
        let ple = c.perLayerEmbeddingLength
        if ple > 0 {
            perLayerTokenEmbedding = try loader.matrix("per_layer_token_embd.weight", rows: c.vocabularySize,
                                                       columns: ple * c.layerCount)
            perLayerModelProjection = try loader.linear("per_layer_model_proj.weight", rows: ple * c.layerCount, columns: c.width)
            perLayerProjectionNorm = try loader.vector("per_layer_proj_norm.weight", count: ple)
        }
        var layers: [LayerWeights] = []
        for i in 0..<c.layerCount {
            let p = "blk.\(i)."
            let ff = c.feedForwardLength(i)
            let mixer: TokenMixer
            if c.isConvolution(i) {
                let taps = c.convolutionLength
                mixer = .shortConvolution(ShortConvolution(
                    inputProjection: try loader.linear(p + "shortconv.in_proj.weight", rows: 3 * c.width, columns: c.width),
                    taps: try loader.floats(p + "shortconv.conv.weight", dimensions: [taps, c.width]),
                    outputProjection: try loader.linear(p + "shortconv.out_proj.weight", rows: c.width, columns: c.width)))
            } else {
                mixer = .attention(try Self.attentionWeights(loader, file: file, layer: i, configuration: c))
            }
            let ffn: FeedForward
            if c.expertCount > 0 {
                let e = c.expertCount
                ffn = .experts(MixtureOfExperts(
                    router: try loader.linear(p + "ffn_gate_inp.weight", rows: e, columns: c.width),
                    gate: try loader.experts(p + "ffn_gate_exps.weight", count: e, rows: ff, columns: c.width),
                    up: try loader.experts(p + "ffn_up_exps.weight", count: e, rows: ff, columns: c.width),
                    down: try loader.experts(p + "ffn_down_exps.weight", count: e, rows: c.width, columns: ff)))
            } else if file.tensor(named: p + "ffn_gate.weight") == nil,
               let up = file.tensor(named: p + "ffn_up.weight"), up.dimensions == [c.width, 2 * ff] {
                ffn = .dense(gateUp: .fused(try loader.linear(p + "ffn_up.weight", rows: 2 * ff, columns: c.width)),
                             down: try loader.linear(p + "ffn_down.weight", rows: c.width, columns: ff))
            } else {
                ffn = .dense(gateUp: .separate(gate: try loader.linear(p + "ffn_gate.weight", rows: ff, columns: c.width),
                                               up: try loader.linear(p + "ffn_up.weight", rows: ff, columns: c.width)),
                             down: try loader.linear(p + "ffn_down.weight", rows: c.width, columns: ff))
            }
            layers.append(LayerWeights(
                attentionNorm: c.hasInputNorms ? try loader.vector(p + "attn_norm.weight", count: c.width) : nil,
                mixer: mixer,
                attentionPostNorm: c.hasPostNorms ? try loader.vector(p + "post_attention_norm.weight", count: c.width) : nil,
                ffnNorm: c.hasInputNorms ? try loader.vector(p + "ffn_norm.weight", count: c.width) : nil,
                ffn: ffn,
                gateBias: try loader.optionalVector(p + "ffn_gate.bias", count: ff),
                upBias: try loader.optionalVector(p + "ffn_up.bias", count: ff),
                downBias: try loader.optionalVector(p + "ffn_down.bias", count: c.width),
                ffnPostNorm: c.hasPostNorms ? try loader.vector(p + "post_ffw_norm.weight", count: c.width) : nil,
                perLayerGate: ple > 0 ? try loader.linear(p + "inp_gate.weight", rows: ple, columns: c.width) : nil,
                perLayerProjection: ple > 0 ? try loader.linear(p + "proj.weight", rows: c.width, columns: ple) : nil,
                perLayerPostNorm: ple > 0 ? try loader.vector(p + "post_norm.weight", count: c.width) : nil,
                outputScale: try loader.optionalVector(p + "layer_output_scale.weight", count: 1)?.first
            ))
        }
        self.layers = layers
    }

    /// Layer `prefix`'s attention tensors.
    private static func attentionWeights(_ loader: TensorLoader, file: GGUFFile, layer: Int,
                                         configuration c: TransformerConfiguration) throws(RuntimeError) -> AttentionWeights {
        let p = "blk.\(layer)."
        let keyLength = c.keyLength(layer)
        let qWidth = c.headCount * keyLength
        let kWidth = c.kvHeads(layer) * keyLength
        let vWidth = c.kvHeads(layer) * c.valueLength(layer)
        let ownsCache = c.keyValueSource(layer) == layer
        let qkv: QKVProjection
        var biases: (q: [Float]?, k: [Float]?, v: [Float]?) = (nil, nil, nil)
        if !ownsCache {
            qkv = .queryOnly(try loader.linear(p + "attn_q.weight", rows: qWidth, columns: c.width))
        } else if c.normalizesValues && file.tensor(named: p + "attn_v.weight") == nil {
            // gemma4 without v_proj ("alternative attention"): the values are the keys' projection.
            let key = try loader.linear(p + "attn_k.weight", rows: kWidth, columns: c.width)
            guard kWidth == vWidth else { throw .missingTensor(p + "attn_v.weight") }
            qkv = .separate(query: try loader.linear(p + "attn_q.weight", rows: qWidth, columns: c.width), key: key, value: key)
        } else if file.tensor(named: p + "attn_qkv.weight") != nil {
            qkv = .fused(try loader.linear(p + "attn_qkv.weight", rows: qWidth + kWidth + vWidth, columns: c.width))
            if let b = try loader.optionalVector(p + "attn_qkv.bias", count: qWidth + kWidth + vWidth) {
                biases = (Array(b[0..<qWidth]), Array(b[qWidth..<(qWidth + kWidth)]), Array(b[(qWidth + kWidth)...]))
            }
        } else {
            qkv = .separate(query: try loader.linear(p + "attn_q.weight", rows: qWidth, columns: c.width),
                            key: try loader.linear(p + "attn_k.weight", rows: kWidth, columns: c.width),
                            value: try loader.linear(p + "attn_v.weight", rows: vWidth, columns: c.width))
        }
        // Biases are used when present (llama.cpp treats them all as optional); qwen2 requires them.
        if biases.q == nil, ownsCache {
            biases = (try loader.vector(p + "attn_q.bias", count: qWidth, required: c.hasQKVBias),
                      try loader.vector(p + "attn_k.bias", count: kWidth, required: c.hasQKVBias),
                      try loader.vector(p + "attn_v.bias", count: vWidth, required: c.hasQKVBias))
        }
        let wholeNorm = c.qkNormScope == .projection
        return AttentionWeights(
            qkv: qkv,
            queryBias: biases.q,
            keyBias: biases.k,
            valueBias: biases.v,
            queryNorm: c.hasQKNorm ? try loader.vector(p + "attn_q_norm.weight", count: wholeNorm ? qWidth : keyLength) : nil,
            keyNorm: c.hasQKNorm && ownsCache
                ? try loader.vector(p + "attn_k_norm.weight", count: wholeNorm ? kWidth : keyLength) : nil,
            output: try loader.linear(p + "attn_output.weight", rows: c.width, columns: c.headCount * c.valueLength(layer)),
            outputBias: try loader.optionalVector(p + "attn_output.bias", count: c.width))
    }

    /// The most rows of any fused projection (0 when every projection is a separate matrix).
    var fusedRows: Int {
        layers.flatMap { layer -> [Int] in
            var rows: [Int] = []
            switch layer.mixer {
            case .attention(let a): if case .fused(let m) = a.qkv { rows.append(m.matrix.rows) }
            case .shortConvolution(let conv): rows.append(conv.inputProjection.matrix.rows)
            }
            if case .dense(.fused(let m), _) = layer.ffn { rows.append(m.matrix.rows) }
            return rows
        }.max() ?? 0
    }

    /// The RoPE frequency factors for a sequence of `contextSize` positions: the long ones past the
    /// length the short ones were made for, as llama.cpp chooses by its context size.
    func ropeFactors(contextSize: Int, configuration c: TransformerConfiguration) -> [Float]? {
        contextSize > c.ropeOriginalContextLength ? ropeFactorsLong : ropeFactorsShort
    }
}

/// Looks tensors up by name and checks their shape and type.
struct TensorLoader {
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

    /// The `count` matrices `[rows × columns]` stacked in a 3-D expert tensor, each a view of its slice.
    func experts(_ name: String, count: Int, rows: Int, columns: Int) throws(RuntimeError) -> [Linear] {
        let tensor = try info(name, dimensions: [columns, rows, count])
        let bytes = file.bytes(of: tensor)
        guard let base = bytes.baseAddress, WeightMatrix.isWeightType(tensor.type) else {
            throw .unsupportedTensorType(name: name, type: tensor.type)
        }
        var result: [Linear] = []
        var offset = 0
        for _ in 0..<count {
            let matrix: WeightMatrix
            do {
                matrix = try WeightMatrix(type: tensor.type, rows: rows, columns: columns, data: base + offset)
            } catch {
                throw .unsupportedTensorType(name: name, type: tensor.type)
            }
            offset += matrix.byteCount
            guard offset <= bytes.count else {
                throw .tensorShape(name: name, expected: [columns, rows, count], actual: tensor.dimensions)
            }
            result.append(Linear(matrix))
        }
        return result
    }

    /// The vector `name`, nil when the file has no such tensor.
    func optionalVector(_ name: String, count: Int) throws(RuntimeError) -> [Float]? {
        file.tensor(named: name) == nil ? nil : try vector(name, count: count)
    }

    /// The vector `name`; when not `required`, nil if the file has no such tensor.
    func vector(_ name: String, count: Int, required: Bool) throws(RuntimeError) -> [Float]? {
        required ? try vector(name, count: count) : try optionalVector(name, count: count)
    }

    func vector(_ name: String, count: Int) throws(RuntimeError) -> [Float] {
        try floats(name, dimensions: [count])
    }

    /// The elements of the F32/F16/BF16 tensor `name` of shape `dimensions` (ggml order), as Float.
    func floats(_ name: String, dimensions: [Int]) throws(RuntimeError) -> [Float] {
        let tensor = try info(name, dimensions: dimensions)
        let count = dimensions.reduce(1, *)
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
