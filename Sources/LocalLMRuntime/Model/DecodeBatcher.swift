#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LocalLMKernels

/// Steps the sequences of one model that are decoding at the same time together: one forward pass
/// computes the next logits of every waiting sequence (continuous batching).
///
/// A decode step streams every weight once for a few multiply-adds per weight. Stepped one by one, n
/// sequences stream (and unpack) the weights n times; stepped together, once (the decode kernels take
/// several activations per weight block, ``Kernels/matvec(_:_:rowsOfX:_:pool:scratch:)``). How much
/// that saves depends on whether one row is bound by memory or by arithmetic (Docs/scale-out.md).
/// Each row is computed exactly as the sequence's own one-token pass computes it, so a sequence's
/// tokens never depend on what else is decoding.
///
/// Every one-token ``ModelSequence/append(_:)-(Int)`` comes here. The calling thread waits while a pass
/// is running; when none is, it runs the next one itself, with every request that has arrived. Before
/// starting, it gives the members of the previous pass that have not asked yet a short window to
/// ask (they are usually sampling their next token): without it, whoever finishes sampling first would
/// run a pass of one. Sequences join at any step and leave by not asking; a sequence that is
/// prefilling runs its own passes meanwhile (the thread pool interleaves them with the batch's).
///
/// Waiting blocks the thread, as a forward pass does: callers are model-work threads (a session's
/// ``ModelWorkExecutor``, the server's requests), not the cooperative pool. Tasks on the cooperative
/// pool still make progress (the window is bounded); they only batch less.
final class DecodeBatcher: @unchecked Sendable {
    /// Sequences per pass at most. Below `MatrixProduct.matvecBatchLimit`; the decode layout uses the
    /// decode kernels whatever the count, but more rows per weight tile stop paying off well before.
    static let maximumBatch = 16
    /// How long a pass waits for the members of the previous one, at most.
    static let gatherWindowNanoseconds = 3_000_000

    private final class Request {
        let sequence: ModelSequence
        let token: Int
        var done = false
        var error: RuntimeError?
        init(_ sequence: ModelSequence, _ token: Int) {
            self.sequence = sequence
            self.token = token
        }
    }

    // Heap-allocated: a C mutex must not move.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    // Under `mutex`:
    private var pending: [Request] = []
    private var running = false
    private var lastMembers: [ObjectIdentifier] = []
    /// Passes run and rows computed, for the benchmarks.
    private var passes = 0
    private var rows = 0
    // Used only by the thread running a pass (`running`); made on the first batch of two or more.
    private var scratch: ForwardScratch?
    private var logits: UnsafeMutablePointer<Float>?

    init() {
        mutex.initialize(to: pthread_mutex_t())
        condition.initialize(to: pthread_cond_t())
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
        logits?.deallocate()
    }

    /// (passes, rows) so far: rows / passes is the mean batch.
    var statistics: (passes: Int, rows: Int) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return (passes, rows)
    }

    /// Appends `token` to `sequence` and computes its logits, in a pass shared with whatever other
    /// sequences of the model are decoding.
    func step(_ sequence: ModelSequence, token: Int) throws(RuntimeError) {
        let request = Request(sequence, token)
        pthread_mutex_lock(mutex)
        pending.append(request)
        pthread_cond_broadcast(condition)
        while !request.done {
            if running {
                pthread_cond_wait(condition, mutex)
                continue
            }
            running = true
            gather()
            let batch = takeBatch()
            pthread_mutex_unlock(mutex)
            run(batch)
            pthread_mutex_lock(mutex)
            passes += 1
            rows += batch.count
            lastMembers = batch.map { ObjectIdentifier($0.sequence) }
            for r in batch { r.done = true }
            running = false
            pthread_cond_broadcast(condition)
        }
        pthread_mutex_unlock(mutex)
        if let error = request.error { throw error }
    }

    /// Waits (holding `running`) until every member of the last pass has a request pending, the batch
    /// is full, or the window has passed. Called with `mutex` held.
    private func gather() {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let end = Int(deadline.tv_nsec) + Self.gatherWindowNanoseconds
        deadline.tv_sec += end / 1_000_000_000
        deadline.tv_nsec = .init(end % 1_000_000_000)
        while pending.count < Self.maximumBatch {
            let waiting = Set(pending.map { ObjectIdentifier($0.sequence) })
            guard lastMembers.contains(where: { !waiting.contains($0) }) else { return }
            if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT { return }
        }
    }

    /// The first requests of distinct sequences, up to ``maximumBatch``, in arrival order, taken out of
    /// `pending`. Called with `mutex` held.
    private func takeBatch() -> [Request] {
        var batch: [Request] = [], seen = Set<ObjectIdentifier>(), rest: [Request] = []
        for r in pending {
            if batch.count < Self.maximumBatch, seen.insert(ObjectIdentifier(r.sequence)).inserted {
                batch.append(r)
            } else {
                rest.append(r)
            }
        }
        pending = rest
        return batch
    }

    /// Runs one pass for the valid requests of `batch`; an invalid one (a token outside the vocabulary,
    /// a full cache) gets its error and changes nothing.
    private func run(_ batch: [Request]) {
        var live: [Request] = []
        for r in batch {
            do throws(RuntimeError) {
                try r.sequence.checkDecodeStep(r.token)
                live.append(r)
            } catch {
                r.error = error
            }
        }
        guard let first = live.first else { return }
        if live.count == 1 {
            first.sequence.decodeStep(first.token)
            return
        }
        let model = first.sequence.model
        let vocab = model.configuration.vocabularySize
        let s: ForwardScratch
        if let made = scratch {
            s = made
        } else {
            let c = model.configuration
            s = ForwardScratch(configuration: c, batchSize: Self.maximumBatch, contextSize: 1, layersHaveBlockMins: false,
                               outputHasBlockMins: false, fusedRows: model.weights.fusedRows, threads: model.threadCount)
            scratch = s
            logits = .allocate(capacity: Self.maximumBatch * vocab)
        }
        guard let out = logits else { return }
        let tokens = live.map(\.token)
        ModelSequence.pass(model: model, scratch: s, rows: .decode(live.map(\.sequence)), ids: tokens[...],
                           logitRows: 0..<live.count, into: out)
        for (t, r) in live.enumerated() {
            r.sequence.receiveDecodeStep(r.token, logits: out + t * vocab)
        }
    }
}
