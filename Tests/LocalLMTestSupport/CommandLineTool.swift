import Foundation

/// The `locallm` executable that `swift build` / `swift test` put next to the test bundle (same
/// configuration), run as a child process, as users run it.
public enum CommandLineTool {
    public struct Run: Sendable {
        public var status: Int32
        /// False if the process died of a signal (a crash).
        public var exited: Bool
        public var stdout: String
        public var stderr: String
    }

    public struct Missing: Error, CustomStringConvertible {
        public let path: String
        public var description: String { "no \(path): build the locallm product (swift build)" }
    }

    public static func executable() throws -> URL {
        let folder = (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).deletingLastPathComponent()
        let url = folder.appendingPathComponent("locallm")
        guard FileManager.default.isExecutableFile(atPath: url.path) else { throw Missing(path: url.path) }
        return url
    }

    public static func run(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Errors and reports are short: stderr cannot fill its pipe while stdout is read first.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, exited: process.terminationReason == .exit,
                   stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }
}
