// LocalLM benchmarks: `swift run -c release LocalLMBenchmarks [suite …]` (release build; see Docs/benchmarking.md).
// Each suite lives in its own file as a `BenchmarkSuite` value and is listed once in `allSuites`.

struct BenchmarkSuite: Sendable {
    /// The name used on the command line, e.g. `kernels`.
    let name: String
    /// Runs the suite and prints one line per measurement.
    let run: @Sendable (_ arguments: [String]) async throws -> Void
}

let allSuites: [BenchmarkSuite] = [
    // Suites register here, one line each, e.g. `kernelsBenchmark,`.
    tokenizerBenchmark,
    grammarBenchmark,
    constrainedDecodeBenchmark,
    kernelsBenchmark,
    endToEndBenchmark,
    batchDecodeBenchmark,
    sessionBenchmark,
    maskBenchBenchmark,
    functionCallingBenchmark,
]

func runBenchmarks() async throws {
    let requested = Array(CommandLine.arguments.dropFirst())
    let selected = requested.isEmpty ? allSuites : allSuites.filter { requested.contains($0.name) }
    if selected.isEmpty {
        print("no benchmark suite matches \(requested); available: \(allSuites.map(\.name).joined(separator: ", "))")
    }
    for suite in selected {
        print("== \(suite.name)")
        try await suite.run(requested)
    }
}

/// A duration in seconds, for the suites' printed figures.
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

try await runBenchmarks()
