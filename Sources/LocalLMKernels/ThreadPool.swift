#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import LocalLMSync

/// A persistent pool of worker threads for the data-parallel kernels.
///
/// `run` splits a call into `threadCount` parts. Parts are *claimed*, not assigned: the caller and the
/// workers take part indices from an atomic counter until none is left. A worker that has not been
/// scheduled yet (the machine is busy, or it is asleep) therefore never holds the caller up: the
/// caller does the remaining parts itself, and the late worker finds nothing to do. The caller waits
/// only for parts that are already running.
///
/// Workers spin for a short while after each call, because a decode step issues a few hundred calls
/// of tens of microseconds and waking a sleeping thread costs about as much; then they block on a
/// condition variable, so an idle pool costs no CPU.
///
/// One `run` at a time: concurrent callers are serialized by a lock, so one pool can be shared by
/// sequences that take turns.
public final class ThreadPool: @unchecked Sendable {
    public let threadCount: Int

    private let state: PoolState
    private var threads: [pthread_t] = []
    private let runLock = SanitizableMutex<Void>(())

    /// `threadCount` defaults to the number of online cores.
    public init(threadCount: Int = ThreadPool.coreCount) {
        self.threadCount = max(1, threadCount)
        state = PoolState()
        for _ in 1..<self.threadCount {
            let context = Unmanaged.passRetained(state).toOpaque()
            var thread = pthread_t()
            let rc = pthread_create(&thread, nil, { raw in
                let state = Unmanaged<PoolState>.fromOpaque(raw!).takeRetainedValue()
                state.workerLoop()
                return nil
            }, context)
            if rc == 0 { threads.append(thread) } else { Unmanaged<PoolState>.fromOpaque(context).release() }
        }
    }

    deinit {
        state.shutdown()
        for thread in threads { pthread_join(thread, nil) }
    }

    /// The number of online cores (at least 1).
    public static var coreCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Runs `body(part, threadCount)` once for every part in `0..<threadCount`, spread over the pool's
    /// threads and the caller, and returns when all have returned. A part index is never run twice
    /// at the same time, so `part` can select per-thread scratch.
    public func run(_ body: (_ part: Int, _ parts: Int) -> Void) {
        run(parts: threadCount, body)
    }

    /// Runs `body(part, parts)` once for every part in `0..<parts`, claimed dynamically by the pool's
    /// threads and the caller. More parts than threads balance the load when a thread is slowed down;
    /// per-thread scratch must then not be indexed by `part`.
    public func run(parts: Int, _ body: (_ part: Int, _ parts: Int) -> Void) {
        let count = parts
        guard count > 0 else { return }
        if threadCount == 1 || threads.isEmpty || count == 1 {
            for t in 0..<count { body(t, count) }
            return
        }
        runLock.withLock { _ in
            withoutActuallyEscaping(body) { escapable in
                state.dispatch(escapable, parts: count)
            }
        }
    }
}

/// The shared state between the caller and the workers.
///
/// A call: the caller publishes `job`, resets `next` and `done`, and bumps `generation`. Everyone
/// claims parts with `next.add`. When `done` reaches the part count the caller *closes* the call
/// (`closed = generation`) and waits until no worker is inside it (`active == 0`). A worker enters by
/// incrementing `active` and then checking that the call is not closed, so it never touches `job`
/// after the caller has returned (the increment and the check, and the close and the wait, are
/// sequentially consistent). The check also re-reads `generation`, so that a worker that was away
/// while later calls came and went never reads a job it has not seen published.
private final class PoolState: @unchecked Sendable {
    let generation = Atomic<Int>(0)
    let closed = Atomic<Int>(0)
    let next = Atomic<Int>(0)
    let done = Atomic<Int>(0)
    let active = Atomic<Int>(0)
    let sleepers = Atomic<Int>(0)
    let stopping = Atomic<Bool>(false)
    var job: ((Int, Int) -> Void)?
    var parts = 1
    // Heap-allocated: a C mutex must not move, and `&property` may pass a temporary copy.
    let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    /// Spin iterations before a worker sleeps; tens of microseconds on current cores.
    static let spinLimit = 20_000

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
    }

    func dispatch(_ body: @escaping (Int, Int) -> Void, parts: Int) {
        job = body
        self.parts = parts
        next.store(0, ordering: .relaxed)
        done.store(0, ordering: .relaxed)
        let current = generation.add(1, ordering: .sequentiallyConsistent).newValue
        if sleepers.load(ordering: .sequentiallyConsistent) > 0 {
            pthread_mutex_lock(mutex)
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        work(body, parts: parts)
        var spins = 0
        while done.load(ordering: .acquiring) != parts {
            spins += 1
            if spins & 255 == 0 { sched_yield() }  // a worker inside a part was preempted: let it run
        }
        closed.store(current, ordering: .sequentiallyConsistent)
        while active.load(ordering: .sequentiallyConsistent) != 0 { sched_yield() }
        job = nil
    }

    /// Claims and runs parts until none is left.
    @inline(__always)
    func work(_ body: (Int, Int) -> Void, parts: Int) {
        while true {
            let part = next.add(1, ordering: .relaxed).oldValue
            guard part < parts else { return }
            body(part, parts)
            done.add(1, ordering: .releasing)
        }
    }

    func workerLoop() {
        var seen = 0
        while true {
            var spins = 0
            var current = generation.load(ordering: .acquiring)
            while current == seen && !stopping.load(ordering: .relaxed) {
                spins += 1
                if spins & 1023 == 0 { sched_yield() }
                if spins >= Self.spinLimit {
                    pthread_mutex_lock(mutex)
                    sleepers.add(1, ordering: .sequentiallyConsistent)
                    while generation.load(ordering: .sequentiallyConsistent) == seen
                        && !stopping.load(ordering: .sequentiallyConsistent) {
                        pthread_cond_wait(condition, mutex)
                    }
                    sleepers.subtract(1, ordering: .sequentiallyConsistent)
                    pthread_mutex_unlock(mutex)
                    spins = 0
                }
                current = generation.load(ordering: .acquiring)
            }
            if stopping.load(ordering: .acquiring) { return }
            seen = current
            active.add(1, ordering: .sequentiallyConsistent)
            // Enter only the call this worker saw published, and only while it is open. `closed` is
            // read first, then `generation` again: while this worker was away the caller may have
            // closed that call, published the next one and closed that too, and the next call's job
            // is not this worker's to read (it has not acquired its publication; ThreadSanitizer
            // reported the read). With both checks passing, the call is still open, and cannot
            // close while `active` counts this worker, so `job` and `parts` are the ones published
            // with `current`.
            if closed.load(ordering: .sequentiallyConsistent) != current
                && generation.load(ordering: .sequentiallyConsistent) == current {
                runJob()
            }
            active.subtract(1, ordering: .sequentiallyConsistent)
        }
    }

    /// Separate so that the worker's copy of the closure is released before it leaves the call
    /// (`withoutActuallyEscaping` in `run` checks that nobody holds the closure afterwards).
    @inline(never)
    func runJob() {
        if let job { work(job, parts: parts) }
    }

    func shutdown() {
        pthread_mutex_lock(mutex)
        stopping.store(true, ordering: .sequentiallyConsistent)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}
