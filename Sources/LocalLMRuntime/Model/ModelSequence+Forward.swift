import Foundation
import LocalLMKernels

/// The rows of one forward pass and where each belongs.
enum PassRows {
    /// Tokens at consecutive positions of one sequence, from `start` (prefill, or one decode step).
    case consecutive(ModelSequence, start: Int)
    /// One token for each of several distinct sequences of the model, each at its own next position:
    /// a decode batch. Every row is computed exactly as that sequence's own one-token pass computes it
    /// (the decode kernels per row, the sequence's own attention), so batching never changes a token.
    case decode([ModelSequence])
}

extension ModelSequence {
    /// Evaluates one batch of tokens at the cache's next positions, appends their keys and values,
    /// and writes the logits of the batch rows in `logitRows` to `logits` (`[logitRows.count × vocab]`).
    ///
    /// The caller has checked the ids and that the batch fits in the cache and in `batchSize`.
    func forward(_ ids: ArraySlice<Int>, logitRows: Range<Int>, into logits: UnsafeMutablePointer<Float>) {
        Self.pass(model: model, scratch: scratch, rows: .consecutive(self, start: cache.count), ids: ids,
                  logitRows: logitRows, into: logits)
    }

    /// One forward pass over `ids` (row t is `ids[ids.startIndex + t]`) laid out as `rows` says, with
    /// `s` (room for every row) as its buffers; keys and values go to each row's sequence, and the logits
    /// of `logitRows` to `logits` (`[logitRows.count × vocab]`).
    ///
    /// The caller has checked the ids, that each sequence's cache has room, and that `s` is large enough.
    static func pass(model: TransformerModel, scratch s: ForwardScratch, rows layout: PassRows, ids: ArraySlice<Int>,
                     logitRows: Range<Int>, into logits: UnsafeMutablePointer<Float>) {
        let c = model.configuration
        let w = model.weights
        let n = ids.count
        let width = c.width

        // Row t's sequence and position.
        let single: ModelSequence?, start: Int, members: [ModelSequence]
        switch layout {
        case .consecutive(let sequence, let first): (single, start, members) = (sequence, first, [])
        case .decode(let sequences): (single, start, members) = (nil, 0, sequences)
        }
        @inline(__always) func sequence(_ t: Int) -> ModelSequence { single ?? members[t] }
        @inline(__always) func position(_ t: Int) -> Int { single != nil ? start + t : members[t].cache.count }
        let tracer = single?.tracer
        @inline(__always) func trace(_ name: @autoclosure () -> String, _ p: UnsafePointer<Float>, rows: Int, width: Int) {
            guard let tracer, rows > 0 else { return }
            tracer(name(), UnsafeBufferPointer(start: p + (rows - 1) * width, count: width))
        }

        let exact = n > 1 && single?.batchArithmetic == .llamaCpp
        // In llama.cpp's graph the last layer keeps only the output rows after attention, so its FFN
        // products have that many rows, which decides ggml's kernel (see below).
        var ggmlRows = n
        func multiply(_ m: Linear, _ input: UnsafePointer<Float>, rows: Int, _ output: UnsafeMutablePointer<Float>) {
            if single == nil {
                // A decode batch: every row through the decode kernels, whatever the batch's size.
                Kernels.matvec(m.matrix, input, rowsOfX: rows, output, pool: model.pool, scratch: s.kernel)
                return
            }
            if exact {
                if Kernels.ggmlUsesTiledProduct(m.matrix.type, rows: ggmlRows) {
                    Kernels.tiledKQuantProduct(m.matrix, input, rowsOfX: rows, output, pool: model.pool, scratch: s.kernel)
                    return
                }
                // As ggml multiplies a batch by these weights: each row through the quantized dot products.
                for t in 0..<rows {
                    Kernels.matvecAsBatchRow(m.matrix, input + t * m.matrix.columns, output + t * m.matrix.rows,
                                             pool: model.pool, scratch: s.kernel)
                }
                return
            }
            MatrixProduct.multiply(m, input, rows: rows, into: output, rounded: s.rounded, correction: s.correction,
                                   pool: model.pool, scratch: s.kernel)
        }

        /// A gated short-convolution block (lfm2) on the `n` rows of `s.normed`, into `s.projected`:
        /// B, C, x = in_proj(input); each row's B·x is stored at its position in its sequence's cache;
        /// out_proj(C · conv(B·x)), the convolution reading the stored rows of the `taps − 1` positions
        /// before (zeros before position 0), summed oldest first in Float as ggml_ssm_conv sums.
        func shortConvolution(_ conv: ShortConvolution, layer l: Int) {
            let taps = c.convolutionLength
            multiply(conv.inputProjection, s.normed, rows: n, s.fused)
            trace("conv.in_proj-\(l)", s.fused, rows: n, width: 3 * width)
            for t in 0..<n {
                guard let history = sequence(t).cache.history(l) else { continue }
                let row = s.fused + t * 3 * width, bx = history + position(t) * width
                for i in 0..<width { bx[i] = row[i] * row[2 * width + i] }
            }
            conv.taps.withUnsafeBufferPointer { kernel in
                for t in 0..<n {
                    let row = s.fused + t * 3 * width, out = s.normed + t * width
                    guard let history = sequence(t).cache.history(l) else {
                        out.update(repeating: 0, count: width)
                        continue
                    }
                    let first = position(t) - (taps - 1)
                    for i in 0..<width {
                        var sum: Float = 0
                        for k in 0..<taps where first + k >= 0 {
                            sum += history[(first + k) * width + i] * kernel[i * taps + k]
                        }
                        out[i] = row[width + i] * sum
                    }
                }
            }
            multiply(conv.outputProjection, s.normed, rows: n, s.projected)
        }

        /// gemma4's per-layer inputs of the `n` rows of `s.x` (the scaled embeddings) into
        /// `s.perLayerInputs` `[n × layers × ple]`: (norm(proj(x) / sqrt(width)) + token row · sqrt(ple)) / sqrt(2),
        /// in the order of llama.cpp's graph.
        func perLayerInputs(rows n: Int) {
            guard let projection = w.perLayerModelProjection, let table = w.perLayerTokenEmbedding,
                  let norm = w.perLayerProjectionNorm else { return }
            let ple = c.perLayerEmbeddingLength, total = ple * c.layerCount
            let out = s.perLayerInputs
            multiply(projection, s.x, rows: n, out)
            let projectionScale = 1 / Float(width).squareRoot()
            for i in 0..<(n * total) { out[i] *= projectionScale }
            normRows(norm, out, rows: n * c.layerCount, width: ple, epsilon: c.rmsEpsilon, into: out)
            trace("per_layer_proj", out, rows: n, width: total)
            let tokenScale = Float(ple).squareRoot(), inputScale = 1 / Float(2).squareRoot()
            for (t, id) in ids.enumerated() {
                let row = s.perLayerToken
                Kernels.dequantizeRow(table, row: id, into: row)
                let o = out + t * total
                for i in 0..<total { o[i] = (o[i] + row[i] * tokenScale) * inputScale }
            }
            trace("inp_per_layer", out, rows: n, width: total)
        }

        // Embeddings (gemma scales them by sqrt(width)).
        for (t, id) in ids.enumerated() {
            let row = s.x + t * width
            Kernels.dequantizeRow(w.tokenEmbedding, row: id, into: row)
            if let scale = c.embeddingScale { for i in 0..<width { row[i] *= scale } }
        }
        trace("inp_scaled", s.x, rows: n, width: width)
        let ple = c.perLayerEmbeddingLength
        if ple > 0 { perLayerInputs(rows: n) }

        for (l, layer) in w.layers.enumerated() {
            let sliding = c.isSliding(l)
            // This layer's shapes (gemma4's sliding and global layers differ).
            let keyLength = c.keyLength(l), kvHeads = c.kvHeads(l)
            let qWidth = c.headCount * keyLength
            let kWidth = kvHeads * keyLength
            let vWidth = kvHeads * c.valueLength(l)
            let aWidth = c.headCount * c.valueLength(l)
            let ff = c.feedForwardLength(l)
            let ownsCache = c.keyValueSource(l) == l
            // Attention block.
            normRows(layer.attentionNorm, s.x, rows: n, width: width, epsilon: c.rmsEpsilon, into: s.normed)
            trace("attn_norm-\(l)", s.normed, rows: n, width: width)
            switch layer.mixer {
            case .attention(let a):
                switch a.qkv {
                case .separate(let query, let key, let value):
                    if n == 1 {
                        // Decode: the three projections of one row in one pool call.
                        Kernels.matvec(query.matrix, s.q, key.matrix, s.k, value.matrix, s.v,
                                       x: s.normed, pool: model.pool, scratch: s.kernel)
                    } else {
                        multiply(query, s.normed, rows: n, s.q)
                        multiply(key, s.normed, rows: n, s.k)
                        multiply(value, s.normed, rows: n, s.v)
                    }
                case .fused(let qkv):
                    multiply(qkv, s.normed, rows: n, s.fused)
                    split(s.fused, rows: n, into: [(s.q, qWidth), (s.k, kWidth), (s.v, vWidth)])
                case .queryOnly(let query):
                    multiply(query, s.normed, rows: n, s.q)
                }
                if let b = a.queryBias { addBias(b, s.q, rows: n) }
                if let b = a.keyBias { addBias(b, s.k, rows: n) }
                if let b = a.valueBias { addBias(b, s.v, rows: n) }
                let wholeProjection = c.qkNormScope == .projection
                if let qn = a.queryNorm {
                    headNorm(qn, s.q, heads: wholeProjection ? n : n * c.headCount,
                             length: wholeProjection ? qWidth : keyLength, epsilon: c.rmsEpsilon)
                }
                if let kn = a.keyNorm {
                    headNorm(kn, s.k, heads: wholeProjection ? n : n * kvHeads,
                             length: wholeProjection ? kWidth : keyLength, epsilon: c.rmsEpsilon)
                }
                if c.normalizesValues && ownsCache {
                    let valueLength = c.valueLength(l)
                    s.ones.withUnsafeBufferPointer { one in
                        for h in 0..<(n * kvHeads) {
                            TransformerMath.rmsNorm(s.v + h * valueLength, weight: one.baseAddress!, count: valueLength,
                                                    epsilon: c.rmsEpsilon, into: s.v + h * valueLength)
                        }
                    }
                }
                let base = sliding ? c.ropeBaseSliding : c.ropeBase
                let frequencyScale = sliding ? c.ropeFrequencyScaleSliding : c.ropeFrequencyScale
                let rotated = c.ropeDimensions(l)
                for t in 0..<n where c.usesRoPE(l) {
                    let factors = sliding && !c.ropeFactorsOnSlidingLayers ? nil
                        : w.ropeFactors(contextSize: sequence(t).contextSize, configuration: c)
                    TransformerMath.ropeTable(position: position(t), dimensions: rotated, base: base,
                                              frequencyScale: frequencyScale, factors: factors,
                                              attentionFactor: c.ropeAttentionFactor, into: s.ropeGlobal)
                    for h in 0..<c.headCount {
                        TransformerMath.rope(s.q + t * qWidth + h * keyLength, cosSin: s.ropeGlobal,
                                             dimensions: rotated, pairing: c.ropePairing)
                    }
                    for h in 0..<kvHeads where ownsCache {
                        TransformerMath.rope(s.k + t * kWidth + h * keyLength, cosSin: s.ropeGlobal,
                                             dimensions: rotated, pairing: c.ropePairing)
                    }
                }
                trace("Qcur-\(l)", s.q, rows: n, width: qWidth)
                if let qs = c.queryScale { for i in 0..<(n * qWidth) { s.q[i] *= qs } }
                if ownsCache {
                    trace("Kcur-\(l)", s.k, rows: n, width: kWidth)
                    trace("Vcur-\(l)", s.v, rows: n, width: vWidth)
                    for t in 0..<n {
                        sequence(t).cache.store(layer: l, position: position(t), key: s.k + t * kWidth, value: s.v + t * vWidth)
                    }
                }
                if let single {
                    single.attend(layer: l, tokens: n, start: start, sliding: sliding)
                } else {
                    // Each sequence attends over its own cache, in its own buffers, as in its one-token pass.
                    for (t, member) in members.enumerated() {
                        member.scratch.q.update(from: s.q + t * qWidth, count: qWidth)
                        member.attend(layer: l, tokens: 1, start: position(t), sliding: sliding)
                        (s.attention + t * aWidth).update(from: member.scratch.attention, count: aWidth)
                    }
                }
                trace("kqv_out-\(l)", s.attention, rows: n, width: aWidth)
                multiply(a.output, s.attention, rows: n, s.projected)
                if let b = a.outputBias { addBias(b, s.projected, rows: n) }
            case .shortConvolution(let conv):
                shortConvolution(conv, layer: l)
            }
            trace("attn_out-\(l)", s.projected, rows: n, width: width)
            if let g = layer.attentionPostNorm {
                normRows(g, s.projected, rows: n, width: width, epsilon: c.rmsEpsilon, into: s.projected)
                trace("attn_post_norm-\(l)", s.projected, rows: n, width: width)
            }
            if let r = c.residualScale { for i in 0..<(n * width) { s.projected[i] *= r } }
            for i in 0..<(n * width) { s.x[i] += s.projected[i] }
            trace("ffn_inp-\(l)", s.x, rows: n, width: width)
            trace("sa_out-\(l)", s.x, rows: n, width: width)

            // Feed-forward block.
            if l == w.layers.count - 1 { ggmlRows = logitRows.count }
            normRows(layer.ffnNorm, s.x, rows: n, width: width, epsilon: c.rmsEpsilon, into: s.normed)
            trace("ffn_norm-\(l)", s.normed, rows: n, width: width)
            switch layer.ffn {
            case .dense(let gateUp, let down):
                switch gateUp {
                case .separate(let gate, let up):
                    if n == 1 {
                        Kernels.matvec(gate.matrix, s.gate, up.matrix, s.up, x: s.normed, pool: model.pool, scratch: s.kernel)
                    } else {
                        multiply(gate, s.normed, rows: n, s.gate)
                        multiply(up, s.normed, rows: n, s.up)
                    }
                case .fused(let gateUp):
                    multiply(gateUp, s.normed, rows: n, s.fused)
                    split(s.fused, rows: n, into: [(s.gate, ff), (s.up, ff)])
                }
                if let b = layer.gateBias { addBias(b, s.gate, rows: n) }
                if let b = layer.upBias { addBias(b, s.up, rows: n) }
                trace("ffn_gate-\(l)", s.gate, rows: n, width: ff)
                trace("ffn_up-\(l)", s.up, rows: n, width: ff)
                activate(c.activation, s, rows: n, width: ff)
                multiply(down, s.gate, rows: n, s.projected)
                if let b = layer.downBias { addBias(b, s.projected, rows: n) }
                trace(c.activation == .silu ? "ffn_swiglu-\(l)" : "ffn_geglu-\(l)", s.gate, rows: n, width: ff)
            case .experts(let moe):
                // Router logits, then each row's top-k experts; each expert runs once on the rows that
                // chose it, reading only its own weights.
                func multiplyExpert(_ m: Linear, _ input: UnsafePointer<Float>, rows: Int, _ output: UnsafeMutablePointer<Float>) {
                    if exact {
                        // As ggml's mul_mat_id: each row through the quantized dot products.
                        for t in 0..<rows {
                            Kernels.matvecAsBatchRow(m.matrix, input + t * m.matrix.columns, output + t * m.matrix.rows,
                                                     pool: model.pool, scratch: s.kernel)
                        }
                    } else if single == nil || rows == 1 {
                        Kernels.matvec(m.matrix, input, rowsOfX: rows, output, pool: model.pool, scratch: s.kernel)
                    } else {
                        MatrixProduct.multiply(m, input, rows: rows, into: output, rounded: s.rounded, correction: s.correction,
                                               pool: model.pool, scratch: s.kernel)
                    }
                }
                let experts = c.expertCount, used = c.expertsUsed
                // The router is an ordinary product in llama.cpp's graph (ggml_mul_mat), the experts are
                // ggml_mul_mat_id. An F32 router (as quantizers leave it) is summed in ggml's order, which
                // decides near-tied expert choices: ggml_vec_dot_f32 for one token (decode, and each row
                // of a decode batch, as its own step), tinyBLAS for a prompt's batch.
                if moe.router.matrix.type == .f32 && width % 8 == 0 && (exact || n == 1 || single == nil) {
                    let weights = moe.router.matrix.data.assumingMemoryBound(to: Float.self)
                    let oneToken = n == 1 || single == nil
                    for t in 0..<n {
                        for e in 0..<experts {
                            let w = weights + e * width, x = s.normed + t * width
                            s.router[t * experts + e] = oneToken ? GGMLRows.dotVec(w, x, count: width)
                                : GGMLRows.dotTiled(w, x, count: width)
                        }
                    }
                } else {
                    multiply(moe.router, s.normed, rows: n, s.router)
                }
                for t in 0..<n {
                    route(s.router + t * experts, c, into: s.expertChoices + t * used * 2)
                }
                // Every choice (row · used + j) grouped by expert, so each chosen expert runs once.
                let choices = (0..<(n * used)).sorted {
                    let a = Int(s.expertChoices[$0 * 2]), b = Int(s.expertChoices[$1 * 2])
                    return a != b ? a < b : $0 < $1
                }
                var start = 0
                while start < choices.count {
                    let e = Int(s.expertChoices[choices[start] * 2])
                    var end = start
                    while end < choices.count && Int(s.expertChoices[choices[end] * 2]) == e { end += 1 }
                    let slots = choices[start..<end]
                    start = end
                    guard e >= 0 && e < experts else { continue }
                    for (r, slot) in slots.enumerated() {
                        (s.expertInput + r * width).update(from: s.normed + (slot / used) * width, count: width)
                    }
                    let k = slots.count
                    multiplyExpert(moe.gate[e], s.expertInput, rows: k, s.gate)
                    multiplyExpert(moe.up[e], s.expertInput, rows: k, s.up)
                    activate(c.activation, s, rows: k, width: ff)
                    multiplyExpert(moe.down[e], s.gate, rows: k, s.projected)
                    for (r, slot) in slots.enumerated() {
                        let weight = s.expertChoices[slot * 2 + 1]
                        let out = s.expertOutputs + slot * width, row = s.projected + r * width
                        for i in 0..<width { out[i] = row[i] * weight }
                    }
                }
                // Summed in the order of the choices (highest weight first), as ggml adds the views.
                for t in 0..<n {
                    let out = s.projected + t * width, first = s.expertOutputs + t * used * width
                    out.update(from: first, count: width)
                    for j in 1..<max(used, 1) {
                        let add = first + j * width
                        for i in 0..<width { out[i] += add[i] }
                    }
                }
            }
            trace("ffn_out-\(l)", s.projected, rows: n, width: width)
            if let g = layer.ffnPostNorm {
                normRows(g, s.projected, rows: n, width: width, epsilon: c.rmsEpsilon, into: s.projected)
                trace("ffn_post_norm-\(l)", s.projected, rows: n, width: width)
            }
            if let r = c.residualScale { for i in 0..<(n * width) { s.projected[i] *= r } }
            for i in 0..<(n * width) { s.x[i] += s.projected[i] }
            if let gate = layer.perLayerGate, let projection = layer.perLayerProjection {
                // gemma4: x += norm(proj(gelu(gate(x)) · this layer's per-layer input)).
                multiply(gate, s.x, rows: n, s.gate)
                for t in 0..<n {
                    (s.up + t * ple).update(from: s.perLayerInputs + (t * c.layerCount + l) * ple, count: ple)
                }
                TransformerMath.geluTable.withUnsafeBufferPointer { table in
                    TransformerMath.geglu(gate: s.gate, up: s.up, count: n * ple, table: table.baseAddress!, into: s.gate)
                }
                multiply(projection, s.gate, rows: n, s.projected)
                normRows(layer.perLayerPostNorm, s.projected, rows: n, width: width, epsilon: c.rmsEpsilon, into: s.projected)
                trace("per_layer_embd_out-\(l)", s.projected, rows: n, width: width)
                for i in 0..<(n * width) { s.x[i] += s.projected[i] }
            }
            if let scale = layer.outputScale { for i in 0..<(n * width) { s.x[i] *= scale } }
            trace("l_out-\(l)", s.x, rows: n, width: width)
        }
        if let single { single.cache.commit(n) } else { for member in members { member.cache.commit(1) } }

        // Logits only where asked: the LM head is the largest matrix (70% of Gemma's bytes).
        guard !logitRows.isEmpty else { return }
        w.outputNorm.withUnsafeBufferPointer { g in
            for (r, t) in logitRows.enumerated() {
                TransformerMath.rmsNorm(s.x + t * width, weight: g.baseAddress!, count: width,
                                        epsilon: c.rmsEpsilon, into: s.normed + r * width)
            }
        }
        trace("result_norm", s.normed, rows: logitRows.count, width: width)
        // A decode batch reads the head once for every row (its rows go through the decode kernels).
        let chunk = single == nil ? logitRows.count : ForwardScratch.logitChunk
        var done = 0
        while done < logitRows.count {
            let rows = min(logitRows.count - done, chunk)
            multiply(w.output, s.normed + done * width, rows: rows, logits + done * c.vocabularySize)
            done += rows
        }
        let count = logitRows.count * c.vocabularySize
        if let scale = c.logitScale {
            // As ggml_scale(logits, 1 / logit_scale).
            let inverse = 1 / scale
            for i in 0..<count { logits[i] *= inverse }
        }
        if let cap = c.finalLogitSoftcap {
            let inverse = 1 / cap
            for i in 0..<count { logits[i] = tanhf(logits[i] * inverse) * cap }
        }
    }

    /// The gated activation of `rows` rows of `s.gate` and `s.up`, into `s.gate`.
    private static func activate(_ activation: TransformerConfiguration.Activation, _ s: ForwardScratch, rows: Int, width: Int) {
        switch activation {
        case .silu:
            TransformerMath.swiglu(gate: s.gate, up: s.up, rows: rows, width: width, into: s.gate)
        case .geluTanh:
            TransformerMath.geluTable.withUnsafeBufferPointer { table in
                TransformerMath.geglu(gate: s.gate, up: s.up, count: rows * width, table: table.baseAddress!, into: s.gate)
            }
        }
    }

    /// One row's expert choices from its router logits, as llama.cpp's build_moe_ffn: softmax over
    /// the experts, the `expertsUsed` most probable (ties to the lower index), their probabilities
    /// renormalized to sum 1 when the architecture says so (the sum clamped to at least 2⁻¹⁴) and
    /// scaled. Writes (expert, weight) pairs to `choices`.
    private static func route(_ logits: UnsafeMutablePointer<Float>, _ c: TransformerConfiguration,
                              into choices: UnsafeMutablePointer<Float>) {
        let count = c.expertCount
        var maximum = -Float.infinity
        for e in 0..<count { maximum = max(maximum, logits[e]) }
        // As ggml_vec_soft_max_f32: groups of 8 through ggml_v_expf, each group's sum reduced in
        // float and added in double; the rest through expf.
        let grouped = count / 8 * 8
        GGMLRows.expShifted(logits, count: grouped, shift: maximum)
        var sum: Double = 0
        for g in stride(from: 0, to: grouped, by: 8) {
            sum += Double(GGMLOrder.sum8(UnsafeRawPointer(logits + g).loadUnaligned(as: SIMD8<Float>.self)))
        }
        for e in grouped..<count {
            logits[e] = expf(logits[e] - maximum)
            sum += Double(logits[e])
        }
        let inverse = Float(1 / sum)
        for e in 0..<count { logits[e] *= inverse }
        var chosen: [Int] = []
        chosen.reserveCapacity(c.expertsUsed)
        for _ in 0..<c.expertsUsed {
            var best = -1
            for e in 0..<count where !chosen.contains(e) && (best < 0 || logits[e] > logits[best]) { best = e }
            chosen.append(best)
        }
        var total: Double = 0                   // ggml_sum_rows: in double, then rounded
        for e in chosen { total += Double(logits[e]) }
        let divisor = max(Float(total), 6.103515625e-5)
        for (j, e) in chosen.enumerated() {
            var weight = logits[e]
            if c.expertWeightsNormalized { weight /= divisor }
            if let scale = c.expertWeightsScale { weight *= scale }
            choices[2 * j] = Float(e)
            choices[2 * j + 1] = weight
        }
    }

    /// Copies each row of a fused projection's output (`[rows × Σ widths]`) into its parts.
    private static func split(_ fused: UnsafePointer<Float>, rows: Int,
                              into parts: [(destination: UnsafeMutablePointer<Float>, width: Int)]) {
        let total = parts.reduce(0) { $0 + $1.width }
        for t in 0..<rows {
            var offset = t * total
            for part in parts {
                (part.destination + t * part.width).update(from: fused + offset, count: part.width)
                offset += part.width
            }
        }
    }

    private static func addBias(_ bias: [Float], _ y: UnsafeMutablePointer<Float>, rows: Int) {
        bias.withUnsafeBufferPointer { b in
            for t in 0..<rows {
                let row = y + t * b.count
                for i in 0..<b.count { row[i] += b[i] }
            }
        }
    }

    private static func headNorm(_ weight: [Float], _ y: UnsafeMutablePointer<Float>, heads: Int, length: Int, epsilon: Float) {
        weight.withUnsafeBufferPointer { g in
            for h in 0..<heads {
                TransformerMath.rmsNorm(y + h * length, weight: g.baseAddress!, count: length, epsilon: epsilon, into: y + h * length)
            }
        }
    }

    /// RMSNorm of each row of `x` with `weight` into `y` (which may be `x`); a copy when there is no
    /// weight (an architecture without that norm).
    private static func normRows(_ weight: [Float]?, _ x: UnsafeMutablePointer<Float>, rows: Int, width: Int, epsilon: Float,
                                 into y: UnsafeMutablePointer<Float>) {
        guard let weight else {
            if x != y { y.update(from: x, count: rows * width) }
            return
        }
        weight.withUnsafeBufferPointer { g in
            for t in 0..<rows {
                TransformerMath.rmsNorm(x + t * width, weight: g.baseAddress!, count: width, epsilon: epsilon, into: y + t * width)
            }
        }
    }

    /// Attention of every (block of query rows, head) of the batch, split between threads, over the
    /// cache of the layer `layer` reads (its own, or gemma4's shared one).
    func attend(layer: Int, tokens n: Int, start: Int, sliding: Bool) {
        let c = model.configuration
        let s = scratch
        let window = sliding ? (c.slidingWindow ?? Int.max) : Int.max
        let kvHeads = c.kvHeads(layer), keyLength = c.keyLength(layer), valueLength = c.valueLength(layer)
        let group = c.headCount / kvHeads
        let qWidth = c.headCount * keyLength
        let aWidth = c.headCount * valueLength
        let source = c.keyValueSource(layer)
        guard let keys = cache.keyBase(source), let values = cache.valueBase(source) else { return }
        let layerCache = Attention.LayerCache(
            type: cache.type, keys: keys, values: values,
            keyStride: kvHeads * keyLength, valueStride: kvHeads * valueLength)
        if n == 1 && c.headCount <= Attention.rowBlock {
            // Decode: every head at once, the work split over positions, heads and value columns.
            let workspace = Attention.workspace(s.decodeWorkspace, contextSize: s.contextSize, keyLength: keyLength,
                                                panelRows: kvHeads * s.contextSize)
            Attention.decodeSplit(
                queries: s.q, heads: c.headCount, kvHeads: kvHeads, position: start, cache: layerCache,
                keyLength: keyLength, valueLength: valueLength, window: window, scale: c.attentionScale,
                softcap: c.attentionSoftcap, contextSize: s.contextSize, workspace: workspace, out: s.attention, pool: model.pool)
            return
        }
        let blocks = (n + Attention.rowBlock - 1) / Attention.rowBlock
        let jobs = blocks * c.headCount
        model.pool.run { part, parts in
            let workspace = Attention.workspace(s.attentionWorkspaces + part * s.attentionFloats,
                                                contextSize: s.contextSize, keyLength: keyLength)
            var job = part
            while job < jobs {
                let b = job / c.headCount, h = job % c.headCount
                let first = b * Attention.rowBlock, rows = min(Attention.rowBlock, n - first)
                Attention.block(
                    queries: s.q + first * qWidth + h * keyLength, queryStride: qWidth, rows: rows,
                    start: start + first, cache: layerCache, kvHead: h / group, keyLength: keyLength,
                    valueLength: valueLength, window: window, scale: c.attentionScale, softcap: c.attentionSoftcap,
                    workspace: workspace,
                    out: s.attention + first * aWidth + h * valueLength, outStride: aWidth,
                    exact: batchArithmetic == .llamaCpp)
                job += parts
            }
        }
    }
}
