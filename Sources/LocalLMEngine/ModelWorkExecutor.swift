import Dispatch

/// The serial executor of an actor that runs model work: forward passes hold a thread for tens of
/// milliseconds per token and seconds per long prompt.
///
/// Swift's default executors run actors on the cooperative pool, which has one thread per core. Two
/// sessions generating at once on a 2-core machine would hold both, and every other task in the
/// program (a UI, a server's network handling, a tool call's own async work) would wait for a token
/// boundary. This executor runs its jobs, in order, on a serial dispatch queue instead: such queues
/// get threads of their own (dispatch "overcommits" for them), outside the cooperative pool's width.
package final class ModelWorkExecutor: SerialExecutor, @unchecked Sendable {
    private let queue: DispatchQueue

    package init(label: String) {
        queue = DispatchQueue(label: label)
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
