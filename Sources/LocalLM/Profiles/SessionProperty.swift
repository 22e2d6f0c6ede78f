import LocalLMSync

extension Transcript {
    /// The history part of a session's transcript: every entry after the instructions.
    ///
    /// Apple declares it as a type of its own, and its documentation assigns an array to it
    /// (`history = Array(history.suffix(50))`); an array of entries is what makes that code compile
    /// as written, so here it is one.
    public typealias HistoryView = [Transcript.Entry]
}

/// Values a session keeps across its requests: its `history` and the entries declared with
/// `@SessionPropertyEntry`. A profile, dynamic instructions and tools read and write them with
/// `@SessionProperty`; anyone else reads them through `session.properties`.
///
/// ```swift
/// extension SessionPropertyValues {
///     @SessionPropertyEntry
///     var toolCallCount: Int = 0
/// }
/// ```
///
/// (`@SessionPropertyEntry` expands to a computed property over a `SessionPropertyKey`, which can
/// also be written by hand.)
public final class SessionPropertyValues: Sendable {
    private let values = SanitizableMutex<[ObjectIdentifier: any Sendable]>([:])
    /// The session whose history this is; `nil` for values made outside a session, which keep a
    /// history of their own.
    private let owner = SanitizableMutex(WeakSession())
    private let detachedHistory = SanitizableMutex<Transcript.HistoryView>([])

    private struct WeakSession: ~Copyable {
        weak var session: LanguageModelSession?
    }

    package init() {}

    package func attach(to session: LanguageModelSession) {
        owner.withLock { $0.session = session }
    }

    public subscript<Key: SessionPropertyKey>(key: Key.Type) -> Key.Value {
        get { values.withLock { $0[ObjectIdentifier(key)] } as? Key.Value ?? Key.defaultValue }
        set { values.withLock { $0[ObjectIdentifier(key)] = newValue } }
    }

    /// The history portion of the session's transcript: its entries without the instructions.
    ///
    /// Setting it replaces them; the instructions stay. The next request renders the edited
    /// transcript, and the model's cache keeps the tokens up to the first changed one, so trimming
    /// old turns costs a prefill of what follows the cut. It can be set between requests and, while
    /// the session responds, from the session's own profile hooks and tools; a write from anywhere
    /// else during a request is refused (logged as `transcriptMutationWhileResponding`).
    public final var history: Transcript.HistoryView {
        get {
            guard let session = owner.withLock({ $0.session }) else { return detachedHistory.withLock { $0 } }
            return session.transcript.history
        }
        set {
            guard let session = owner.withLock({ $0.session }) else {
                detachedHistory.withLock { $0 = newValue }
                return
            }
            session.replaceHistory(with: newValue, fromInside: SessionPropertyValues.current === self)
        }
    }

    /// The values of the session whose profile, hooks or tools are running.
    @TaskLocal package static var current: SessionPropertyValues?
}

extension Transcript {
    /// The entries after the leading instructions entry.
    package var history: Transcript.HistoryView {
        if case .instructions? = entries.first { return Array(entries.dropFirst()) }
        return entries
    }

    /// This transcript with `history` in place of its history.
    package func replacingHistory(with history: some Sequence<Transcript.Entry>) -> Transcript {
        var kept: [Transcript.Entry] = []
        if case .instructions(let instructions)? = entries.first { kept.append(.instructions(instructions)) }
        // A history given with instructions of its own keeps the session's instructions instead.
        kept.append(contentsOf: history.filter { if case .instructions = $0 { false } else { true } })
        return Transcript(entries: kept)
    }
}

/// A key of a session property, with the value it starts with.
public protocol SessionPropertyKey {
    associatedtype Value: Sendable
    static var defaultValue: Value { get }
}

extension LanguageModelSession {
    /// Reads and writes a session property from a dynamic profile, dynamic instructions and tools:
    ///
    /// ```swift
    /// @SessionProperty(\.history)
    /// var history
    /// ```
    ///
    /// Inside a session's profile, hooks and tool calls it is the session's value; anywhere else it
    /// is a value of its own, kept by this wrapper.
    @propertyWrapper
    public struct SessionProperty<Value>: Sendable {
        private let keyPath: ReferenceWritableKeyPath<SessionPropertyValues, Value> & Sendable
        /// Used outside a session (a profile built by hand): changes are kept here.
        private let detached = SessionPropertyValues()

        public init(_ keyPath: ReferenceWritableKeyPath<SessionPropertyValues, Value> & Sendable) {
            self.keyPath = keyPath
        }

        private var store: SessionPropertyValues { SessionPropertyValues.current ?? detached }

        public var wrappedValue: Value {
            get { store[keyPath: keyPath] }
            nonmutating set { store[keyPath: keyPath] = newValue }
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
/// and write it with `@SessionProperty(\.toolCallCount)`, and anyone with the session can read it
/// as `session.properties.toolCallCount`.
@attached(accessor, names: named(get), named(set))
@attached(peer, names: prefixed(__Key_))
public macro SessionPropertyEntry() = #externalMacro(module: "LocalLMMacros", type: "SessionPropertyEntryMacro")

extension Tool {
    /// `@SessionProperty` written unqualified inside a tool, as in a profile: a tool's call runs
    /// with its session's property values.
    public typealias SessionProperty<Value> = LanguageModelSession.SessionProperty<Value>
}
