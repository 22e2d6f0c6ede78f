import Synchronization

#if LOCALLM_TSAN
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#endif

/// The project's lock: `Synchronization.Mutex`, with the same `withLock`, except in ThreadSanitizer
/// builds.
///
/// ThreadSanitizer on Linux does not see `Mutex` acquire and release (it waits on a futex inside the
/// standard library, which is not instrumented), so every value it guards looks raced. Built with
/// `-D LOCALLM_TSAN` (scripts/sanitizers.sh thread), this is a `pthread_mutex_t`, which ThreadSanitizer
/// intercepts, and its reports are real. Normal builds get `Mutex` itself, inlined.
@frozen
package struct SanitizableMutex<Value: ~Copyable>: ~Copyable, @unchecked Sendable {
    #if LOCALLM_TSAN
    @usableFromInline let storage: Storage

    @usableFromInline final class Storage {
        @usableFromInline let lock: UnsafeMutablePointer<pthread_mutex_t>
        @usableFromInline var value: Value

        init(_ value: consuming Value) {
            lock = .allocate(capacity: 1)
            lock.initialize(to: pthread_mutex_t())
            pthread_mutex_init(lock, nil)
            self.value = value
        }

        deinit {
            pthread_mutex_destroy(lock)
            lock.deallocate()
        }
    }

    package init(_ initialValue: consuming sending Value) {
        storage = Storage(initialValue)
    }

    @inlinable
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(storage.lock)
        defer { pthread_mutex_unlock(storage.lock) }
        return try body(&storage.value)
    }

    /// `body` on the value when the lock is free now; nil, without waiting, when another thread holds it.
    @inlinable
    package borrowing func withLockIfAvailable<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result? {
        guard pthread_mutex_trylock(storage.lock) == 0 else { return nil }
        defer { pthread_mutex_unlock(storage.lock) }
        return try body(&storage.value)
    }
    #else
    @usableFromInline let mutex: Mutex<Value>

    package init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    @inlinable
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock(body)
    }

    /// `body` on the value when the lock is free now; nil, without waiting, when another thread holds it.
    @inlinable
    package borrowing func withLockIfAvailable<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result? {
        try mutex.withLockIfAvailable(body)
    }
    #endif
}
