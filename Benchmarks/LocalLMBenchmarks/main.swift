// LocalLM benchmarks: `swift run -c release LocalLMBenchmarks [suite …]` (release build; see Docs/benchmarking.md).
// Each suite lives in its own file as `enum XBenchmark: BenchmarkSuite` and is listed once here.
import Foundation

protocol BenchmarkSuite {
    /// The name used on the command line, e.g. `kernels`.
    static var name: String { get }
    /// Runs the suite and prints one line per measurement.
    static func run(arguments: [String]) async throws
}

let suites: [any BenchmarkSuite.Type] = [
    // Suites register here, one line each.
]

let requested = Array(CommandLine.arguments.dropFirst())
let selected = requested.isEmpty ? suites : suites.filter { requested.contains($0.name) }
if selected.isEmpty {
    print("no benchmark suite matches \(requested); available: \(suites.map(\.name).joined(separator: ", "))")
}
for suite in selected {
    print("== \(suite.name)")
    try await suite.run(arguments: requested)
}
