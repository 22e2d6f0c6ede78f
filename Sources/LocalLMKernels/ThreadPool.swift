#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// A persistent pool of worker threads for the data-parallel kernels.
///
/// `run` hands one closure to every thread (the caller is thread 0) and returns when all have finished.
/// Workers spin for a short while after each job, because a decode step issues about a thousand jobs
/// of tens of microseconds each and waking a sleeping thread costs about as much as a job; after the
/// spin they block on a condition variable so an idle pool costs no CPU.
///
/// One `run` at a time: concurrent callers are serialized by a lock, so one pool can be shared by
/// sequences that take turns, or each sequence can own a pool.
public final class ThreadPool: @unchecked Sendable {
    public let threadCount: Int

    private let state: PoolState
    private var threads: [pthread_t] = []
    private let runLock = Mutex<Void>(())

    /// `threadCount` defaults to the number of online cores.
    public init(threadCount: Int = ThreadPool.coreCount) {
        self.threadCount = max(1, threadCount)
        state = PoolState(workers: self.threadCount - 1)
        for index in 1..<self.threadCount {
            let context = Unmanaged.passRetained(WorkerContext(state: state, index: index)).toOpaque()
            var thread = pthread_t()
            let rc = pthread_create(&thread, nil, { raw in
                let context = Unmanaged<WorkerContext>.fromOpaque(raw!).takeRetainedValue()
                context.state.workerLoop(index: context.index)
                return nil
            }, context)
            if rc == 0 { threads.append(thread) } else { Unmanaged<WorkerContext>.fromOpaque(context).release() }
        }
        state.liveWorkers = threads.count
    }

    deinit {
        state.shutdown()
        for thread in threads { pthread_join(thread, nil) }
    }

    /// The number of online cores (at least 1).
    public static var coreCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// Runs `body(thread, threadCount)` on every thread of the pool, the caller included as thread 0,
    /// and returns when all calls have returned.
    public func run(_ body: (_ thread: Int, _ threadCount: Int) -> Void) {
        let count = threadCount
        if count == 1 || state.liveWorkers != count - 1 {
            // No workers (or thread creation failed): do every share on the caller.
            for t in 0..<count { body(t, count) }
            return
        }
        runLock.withLock { _ in
            withoutActuallyEscaping(body) { escapable in
                state.dispatch(escapable, threadCount: count)
            }
        }
    }
}

private final class WorkerContext {
    let state: PoolState
    let index: Int
    init(state: PoolState, index: Int) { self.state = state; self.index = index }
}

/// The shared state between the caller and the workers. `job` is written by the caller before the
/// generation bump (release) and read by workers after they observe it (acquire).
private final class PoolState: @unchecked Sendable {
    let workers: Int
    var liveWorkers = 0
    let generation = Atomic<Int>(0)
    let pending = Atomic<Int>(0)
    let sleepers = Atomic<Int>(0)
    let stopping = Atomic<Bool>(false)
    var job: ((Int, Int) -> Void)?
    var jobThreadCount = 1
    // Heap-allocated: a C mutex must not move, and `&property` may pass a temporary copy.
    let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    /// Spin iterations before a worker sleeps; about 50–100 µs on current cores.
    static let spinLimit = 20_000

    init(workers: Int) {
        self.workers = workers
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

    func dispatch(_ body: @escaping (Int, Int) -> Void, threadCount: Int) {
        job = body
        jobThreadCount = threadCount
        pending.store(workers, ordering: .relaxed)
        generation.add(1, ordering: .sequentiallyConsistent)
        if sleepers.load(ordering: .sequentiallyConsistent) > 0 {
            pthread_mutex_lock(mutex)
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        body(0, threadCount)
        var spins = 0
        while pending.load(ordering: .acquiring) != 0 {
            spins += 1
            if spins >= Self.spinLimit { sched_yield() }  // a worker was preempted: let it run
        }
        job = nil
    }

    func workerLoop(index: Int) {
        // Generation 0 is "no job yet": a worker that starts late must still run job 1.
        var seen = 0
        while true {
            var spins = 0
            var current = generation.load(ordering: .acquiring)
            while current == seen && !stopping.load(ordering: .relaxed) {
                spins += 1
                if spins & 1023 == 0 { sched_yield() }  // lets a preempted caller run when cores are oversubscribed
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
            runJob(index)
            pending.subtract(1, ordering: .releasing)
        }
    }

    /// Separate so that the worker's copy of the closure is released before it reports completion
    /// (`withoutActuallyEscaping` in `run` checks that nobody holds the closure afterwards).
    @inline(never)
    func runJob(_ index: Int) {
        if let job { job(index, jobThreadCount) }
    }

    func shutdown() {
        pthread_mutex_lock(mutex)
        stopping.store(true, ordering: .sequentiallyConsistent)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }
}
