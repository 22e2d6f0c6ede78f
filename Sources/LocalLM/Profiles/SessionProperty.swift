import Synchronization

/// Values a session keeps for its dynamic profile (counters, flags). Declare one with
/// `@SessionPropertyEntry` in an extension of this type:
///
/// ```swift
/// extension SessionPropertyValues {
///     @SessionPropertyEntry
///     var toolCallCount: Int = 0
/// }
/// ```
///
/// (It expands to a computed property over a `SessionPropertyKey`, which can also be written by hand.)
public struct SessionPropertyValues: Sendable {
    private var values: [ObjectIdentifier: any Sendable] = [:]

    package init() {}

    public subscript<Key: SessionPropertyKey>(key: Key.Type) -> Key.Value {
        get { values[ObjectIdentifier(key)] as? Key.Value ?? Key.defaultValue }
        set { values[ObjectIdentifier(key)] = newValue }
    }
}

/// A key of a session property, with the value it starts with.
public protocol SessionPropertyKey {
    associatedtype Value: Sendable
    static var defaultValue: Value { get }
}

/// The property store of the session whose profile is being worked out or whose hooks run.
package final class SessionPropertyStore: Sendable {
    package let values = Mutex(SessionPropertyValues())
    package init() {}

    @TaskLocal package static var current: SessionPropertyStore?
}

extension LanguageModelSession {
    /// Reads and writes a session property from a dynamic profile's `body` and hooks.
    @propertyWrapper
    public struct SessionProperty<Value: Sendable>: Sendable {
        private let keyPath: WritableKeyPath<SessionPropertyValues, Value> & Sendable
        /// Used outside a session (a profile built by hand): changes are kept here.
        private let detached = SessionPropertyStore()

        public init(_ keyPath: WritableKeyPath<SessionPropertyValues, Value> & Sendable) {
            self.keyPath = keyPath
        }

        private var store: SessionPropertyStore { SessionPropertyStore.current ?? detached }

        public var wrappedValue: Value {
            get { store.values.withLock { $0[keyPath: keyPath] } }
            nonmutating set { store.values.withLock { $0[keyPath: keyPath] = newValue } }
        }
    }
}

/// Declares a session property in an extension of `SessionPropertyValues`, with its default value:
///
/// ```swift
/// extension SessionPropertyValues {
///     @SessionPropertyEntry
///     var toolCallCount: Int = 0
/// }
/// ```
///
/// It expands to a computed property over a private `SessionPropertyKey`, so a profile can read
/// and write it with `@SessionProperty(\.toolCallCount)`.
@attached(accessor, names: named(get), named(set))
@attached(peer, names: prefixed(__Key_))
public macro SessionPropertyEntry() = #externalMacro(module: "LocalLMMacros", type: "SessionPropertyEntryMacro")
