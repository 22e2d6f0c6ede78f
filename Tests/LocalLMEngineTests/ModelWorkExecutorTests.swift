import Dispatch
import Foundation
import LocalLMEngine
import Testing

/// Model work must not hold the cooperative pool's threads: actors on a `ModelWorkExecutor` that
/// block (as a forward pass does) leave the pool free for other tasks.
@Suite struct ModelWorkExecutorTests {
    actor Worker {
        private let executor = ModelWorkExecutor(label: "test.worker")
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
        private var log: [Int] = []

        /// Blocks its thread until `gate` is signalled, like a long forward pass.
        func block(_ gate: DispatchSemaphore, started: DispatchSemaphore) {
            started.signal()
            gate.wait()
        }

        func append(_ value: Int) -> [Int] {
            log.append(value)
            return log
        }
    }

    @Test func blockedWorkersLeaveTheCooperativePoolFree() async {
        // More blocked workers than the pool has threads: on default actor executors the detached
        // task below could not run until they were released.
        let workers = (0..<(ProcessInfo.processInfo.activeProcessorCount + 2)).map { _ in Worker() }
        let gate = DispatchSemaphore(value: 0), started = DispatchSemaphore(value: 0), ran = DispatchSemaphore(value: 0)
        let tasks = workers.map { worker in Task { await worker.block(gate, started: started) } }
        // Off the pool: wait until every worker blocks (all at once: more than the pool's width), give a
        // plain task time to run, then release the workers whatever happened (so a failure is reported,
        // not a hung suite). The deadline is generous because under `swift test --parallel` other
        // tests' synchronous model work may hold the pool for a while; the suite runs `--no-parallel`.
        let ranInTime = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            DispatchQueue(label: "test.waiter").async {
                let deadline = DispatchTime.now() + 90
                var allStarted = true
                for _ in workers where started.wait(timeout: deadline) == .timedOut { allStarted = false }
                Task.detached { ran.signal() }
                let ok = allStarted && ran.wait(timeout: deadline) == .success
                for _ in workers { gate.signal() }
                done.resume(returning: ok)
            }
        }
        #expect(ranInTime, "a task on the cooperative pool could not run while model workers were busy")
        for task in tasks { await task.value }
    }

    @Test func jobsRunInOrderOnOneActor() async {
        let worker = Worker()
        for i in 0..<100 { _ = await worker.append(i) }
        #expect(await worker.append(100) == Array(0...100))
    }
}
