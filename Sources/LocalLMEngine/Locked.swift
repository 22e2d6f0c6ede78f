import LocalLMSync

/// A `Mutex` in a class, for value types (executors, streams) that share one lock among copies.
package final class Locked<Value: Sendable>: Sendable {
    private let mutex: SanitizableMutex<Value>

    package init(_ value: Value) {
        mutex = SanitizableMutex(value)
    }

    package func withLock<Result>(_ body: (inout sending Value) throws -> sending Result) rethrows -> sending Result {
        try mutex.withLock(body)
    }
}
