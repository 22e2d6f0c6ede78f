import Logging

/// Where LocalLM's loggers send records. By default that is swift-log's process-wide
/// `LoggingSystem` (whose default handler prints `.info` and above, and LocalLM logs at `.debug`
/// and `.trace`, so nothing shows unless the app asks). Tests and tools that want one session's
/// records without bootstrapping the whole process make the session inside ``with(_:_:)``.
package enum LogHandlerOverride {
    package typealias Factory = @Sendable (_ label: String) -> any LogHandler

    @TaskLocal private static var factory: Factory?

    /// Runs `operation` so that the loggers it makes (a session's, and its executor's) use `factory`.
    /// (The task-local stays private and is bound here, in its own module.)
    package static func with<Result>(_ factory: @escaping Factory, _ operation: () throws -> Result) rethrows -> Result {
        try $factory.withValue(factory, operation: operation)
    }

    package static func logger(label: String) -> Logger {
        if let factory { return Logger(label: label, factory: factory) }
        return Logger(label: label)
    }
}
