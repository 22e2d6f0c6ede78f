import LocalLM

/// The sequences (executors, each with its own KV cache) one served model runs requests on. A
/// request takes one, or waits for one, and gives it back when it ends, finished, failed or
/// cancelled (a client that disconnects): so memory is bounded by the pool, not by the clients.
/// An executor keeps its cache between requests, so a conversation that comes back to the same
/// sequence reuses its prefix.
actor SequencePool {
    private var free: [SystemLanguageModel.Executor]
    private var waiters: [(id: Int, continuation: CheckedContinuation<SystemLanguageModel.Executor, any Error>)] = []
    private var nextWaiter = 0

    init(model: SystemLanguageModel, count: Int) throws {
        free = try (0..<max(1, count)).map { _ in try SystemLanguageModel.Executor(configuration: model.executorConfiguration) }
    }

    func acquire() async throws -> SystemLanguageModel.Executor {
        if let executor = free.popLast() { return executor }
        nextWaiter += 1
        let id = nextWaiter
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters.append((id, continuation))
                }
            }
        } onCancel: {
            Task { await self.cancelWaiter(id) }
        }
    }

    func release(_ executor: SystemLanguageModel.Executor) {
        if waiters.isEmpty {
            free.append(executor)
        } else {
            waiters.removeFirst().continuation.resume(returning: executor)
        }
    }

    private func cancelWaiter(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
    }

    /// Sequences not in use, for tests and `/health`.
    var idleCount: Int { free.count }
}
