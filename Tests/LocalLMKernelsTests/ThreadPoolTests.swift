import Synchronization
import Testing
@testable import LocalLMKernels

struct ThreadPoolTests {
    @Test(arguments: [1, 2, 4])
    func everyThreadRunsOncePerCall(threads: Int) {
        let pool = ThreadPool(threadCount: threads)
        #expect(pool.threadCount == threads)
        let counts = UnsafeMutablePointer<Int>.allocate(capacity: threads)
        counts.initialize(repeating: 0, count: threads)
        defer { counts.deallocate() }
        let calls = 500
        for _ in 0..<calls {
            pool.run { t, n in
                #expect(n == threads)
                counts[t] += 1  // each thread writes only its own slot
            }
        }
        for t in 0..<threads { #expect(counts[t] == calls) }
    }

    @Test func workersWakeAfterSleeping() async throws {
        let pool = ThreadPool(threadCount: 2)
        let total = Atomic<Int>(0)
        for _ in 0..<3 {
            pool.run { _, _ in total.add(1, ordering: .relaxed) }
            try await Task.sleep(for: .milliseconds(30))  // long enough for the worker to block
        }
        #expect(total.load(ordering: .relaxed) == 6)
    }

    @Test func evenSplitCoversEverything() {
        for count in [0, 1, 5, 64, 197, 1000] {
            for parts in 1...5 {
                var covered = 0, previousEnd = 0
                for p in 0..<parts {
                    let (s, e) = Kernels.evenSplit(count, parts: parts, part: p, granularity: 4)
                    #expect(s == previousEnd)
                    covered += e - s
                    previousEnd = e
                }
                #expect(covered == count)
            }
        }
    }
}
