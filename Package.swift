// swift-tools-version: 6.1
// LocalLM: Apple's FoundationModels API on any machine, over a from-scratch Swift transformer runtime.
//
// Layering (lowest first); a target never imports one above it (Docs/architecture.md):
//   LocalLMGGUF → LocalLMKernels, LocalLMTokenizers, LocalLMJinja
//   LocalLMTokenizers → LocalLMGrammar;  LocalLMKernels + LocalLMTokenizers → LocalLMRuntime
//   LocalLMGrammar + LocalLMRuntime + LocalLMJinja → LocalLMEngine → LocalLM → LocalLMCLI (`locallm`)
// Examples/ is a package of its own (Examples/Package.swift), so a package depending on LocalLM
// never resolves GRDB; the test command builds the examples inside this package (see the end).
// (LocalLMKernels also uses two C modules: COpenBLAS for sgemm and CLocalLMShims for prefetch;
// LocalLMSync, the lock, sits below every layer that locks.)
// No unsafeFlags: ISA-specific kernels are switched on by the *user's* build flags
// (`-Xswiftc -target-cpu -Xswiftc native -Xswiftc -DLOCALLM_NATIVE`), never by this manifest,
// so the package stays usable as a dependency.
import CompilerPluginSupport
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let package = Package(
    name: "LocalLM",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LocalLM", targets: ["LocalLM"]),
        // The command-line tool keeps its name; its target is LocalLMCLI so that no two source
        // folders differ only in case (`Sources/LocalLM`), which a case-insensitive disk cannot hold.
        .executable(name: "locallm", targets: ["LocalLMCLI"]),
        // A `LanguageModel` for any OpenAI-compatible endpoint (vLLM, llama.cpp server, Ollama,
        // `locallm serve`). A product of its own so that an app running local models only does not link
        // AsyncHTTPClient/SwiftNIO; SwiftPM still resolves (clones) those packages for every dependent,
        // because resolution is per package, not per product.
        .library(name: "LocalLMOpenAI", targets: ["LocalLMOpenAI"]),
    ],
    dependencies: [
        // CLI parsing for `locallm`.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Request tracing in the API layer; quiet by default.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // @Generable / @Guide macros (LocalLMMacros) are swift-syntax compiler plugins.
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        // The remote backend's HTTP client (LocalLMOpenAI). Not URLSession: it is unreliable on Linux
        // under concurrency.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // `locallm serve`'s HTTP server (LocalLMServer).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // ByteBuffer, which both of the above speak.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // OpenBLAS's CBLAS interface (Debian: libopenblas-dev), for sgemm in batched prefill.
        .systemLibrary(
            name: "COpenBLAS",
            path: "Sources/COpenBLAS",
            pkgConfig: "openblas",
            providers: [.apt(["libopenblas-dev"])]
        ),
        // C helpers the Swift kernels cannot express (software prefetch). Header-only static inlines.
        .target(name: "CLocalLMShims", path: "Sources/CLocalLMShims"),
        // The one JSON value type, parser and string escaper every layer shares (schemas, tool calls,
        // chat templates' JSON, GeneratedContent). Depends on nothing so every layer can use it.
        .target(name: "LocalLMJSON", swiftSettings: swiftSettings),
        // The project's lock (Synchronization.Mutex, or a pthread mutex that ThreadSanitizer sees in
        // sanitizer builds). Depends on nothing so every layer that locks can use it.
        .target(name: "LocalLMSync", swiftSettings: swiftSettings),
        // The GGUF reader: mmap, metadata, tensor table. JSON only for the summary's string escaping,
        // so every layer can use it.
        .target(name: "LocalLMGGUF", dependencies: ["LocalLMJSON"], swiftSettings: swiftSettings),
        // Quant blocks, dequantization, dot products, matvec/matmul, norms, RoPE, thread pool.
        // Needs GGUF for the ggml type table and tensor views; OpenBLAS for sgemm.
        .target(name: "LocalLMKernels", dependencies: ["LocalLMGGUF", "LocalLMSync", "COpenBLAS", "CLocalLMShims"], swiftSettings: swiftSettings),
        // Vocabularies, BPE/SPM tokenizers, streaming detokenizer.
        // Needs GGUF to read tokenizer.* metadata; nothing numeric.
        .target(name: "LocalLMTokenizers", dependencies: ["LocalLMGGUF"], swiftSettings: swiftSettings),
        // The Jinja interpreter that renders chat templates, kept apart from the vocabulary as llama.cpp
        // keeps its own. Needs GGUF only to read `tokenizer.chat_template` and the special-token texts.
        // JSON for `fromjson`-style contexts and `tojson`.
        .target(name: "LocalLMJinja", dependencies: ["LocalLMGGUF", "LocalLMJSON"], swiftSettings: swiftSettings),
        // JSON Schema / GBNF / regex → grammar → token masks. Needs the vocabulary's token bytes only.
        // JSON for schemas (re-exported: grammar users read schemas as `JSONValue`).
        .target(name: "LocalLMGrammar", dependencies: ["LocalLMTokenizers", "LocalLMJSON", "LocalLMSync"], swiftSettings: swiftSettings),
        // Architectures, KV cache, sampler chain: everything that turns ids into logits
        // and a logit row into a token. GGUF for the weights, Kernels for the arithmetic, Tokenizers for
        // the vocabulary a model file carries. The grammar plugs into the sampler from above, through
        // the `TokenMask` protocol, so the runtime does not depend on it.
        .target(
            name: "LocalLMRuntime",
            dependencies: ["LocalLMGGUF", "LocalLMKernels", "LocalLMTokenizers"],
            swiftSettings: swiftSettings
        ),
        // The engine: model loading (one BOS rule, one grammar token table), the grammar mask step (lazy
        // and required), and the one generation loop every caller uses (sessions, `locallm generate`).
        // Runtime for the model and sampler, Tokenizers for ids ↔ text, Grammar for constrained decoding,
        // Jinja for the model's chat template (which it renders from chat messages, with the tool-call
        // formats of model families), JSON for tools, calls and schemas as values, GGUF to open the file.
        // Knows nothing of sessions.
        .target(
            name: "LocalLMEngine",
            dependencies: ["LocalLMGGUF", "LocalLMTokenizers", "LocalLMJinja", "LocalLMGrammar", "LocalLMRuntime", "LocalLMKernels", "LocalLMJSON", "LocalLMSync"],
            swiftSettings: swiftSettings
        ),
        // @Generable and @Guide expand at compile time into Generable conformances, schemas and
        // PartiallyGenerated types, as Apple's do; a macro is a compiler plugin, so swift-syntax only.
        .macro(
            name: "LocalLMMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ],
            swiftSettings: swiftSettings
        ),
        // The public FoundationModels-compatible API: sessions, tools, @Generable, transcript.
        // Engine for the model and the generation loop (Runtime for the sampler settings, Jinja and
        // Tokenizers for rendering transcripts, Grammar for schemas), Macros for @Generable, Logging for
        // request tracing.
        .target(
            name: "LocalLM",
            dependencies: [
                "LocalLMEngine", "LocalLMRuntime", "LocalLMTokenizers", "LocalLMJinja", "LocalLMGrammar", "LocalLMJSON",
                "LocalLMSync", "LocalLMMacros",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The OpenAI chat-completions wire types (requests, responses, stream chunks, tools, errors),
        // Codable and nothing else, so that the server (LocalLMServer) and the client (LocalLMOpenAI)
        // speak one definition. JSON for schemas and tool arguments as `JSONValue`. Sits beside LocalLM:
        // it knows nothing of sessions or the engine.
        .target(name: "LocalLMOpenAIWire", dependencies: ["LocalLMJSON"], swiftSettings: swiftSettings),
        // The remote backend: a `LanguageModel` over an OpenAI-compatible endpoint. LocalLM for the
        // protocols it implements, the wire types, AsyncHTTPClient for HTTP.
        .target(
            name: "LocalLMOpenAI",
            dependencies: [
                "LocalLM", "LocalLMOpenAIWire", "LocalLMJSON",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // `locallm serve`: Hummingbird routes that map OpenAI requests onto the engine's one generation
        // loop. Engine for loading and generation (Grammar for tool/format constraints), the wire types.
        // Not a product: only the CLI and the tests use it.
        .target(
            name: "LocalLMServer",
            dependencies: [
                "LocalLM", "LocalLMEngine", "LocalLMGrammar", "LocalLMRuntime", "LocalLMTokenizers", "LocalLMJSON",
                "LocalLMOpenAIWire",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The command-line tool `locallm`. LocalLM for chat/run/agent through sessions; the lower
        // targets for the commands that inspect one layer (inspect, tokenize, template, logits, bench).
        .executableTarget(
            name: "LocalLMCLI",
            dependencies: [
                "LocalLM", "LocalLMEngine", "LocalLMGGUF", "LocalLMKernels", "LocalLMTokenizers", "LocalLMJinja",
                "LocalLMGrammar", "LocalLMRuntime", "LocalLMServer", "LocalLMSync", "LocalLMJSON",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // Benchmarks are an executable so that release figures come from one documented command.
        .executableTarget(
            name: "LocalLMBenchmarks",
            // LocalLM for the session suite (multi-turn time to first token through the public API).
            dependencies: ["LocalLMGGUF", "LocalLMKernels", "LocalLMTokenizers", "LocalLMGrammar", "LocalLMRuntime", "LocalLMEngine", "LocalLM"],
            path: "Benchmarks/LocalLMBenchmarks",
            swiftSettings: swiftSettings
        ),

        // Test support: a synthetic GGUF writer, model and fixture locators, and the JSON Schema
        // validator that grammar and real-model tests share (it reads JSONValue, which LocalLMGrammar re-exports),
        // and llama.cpp's runtime goldens, which runtime and engine tests share.
        .target(
            name: "LocalLMTestSupport",
            dependencies: ["LocalLMGGUF", "LocalLMGrammar"],
            path: "Tests/LocalLMTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "LocalLMGGUFTests", dependencies: ["LocalLMGGUF", "LocalLMTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "LocalLMKernelsTests", dependencies: ["LocalLMKernels", "LocalLMTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "LocalLMTokenizersTests", dependencies: ["LocalLMTokenizers", "LocalLMTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "LocalLMJinjaTests", dependencies: ["LocalLMJinja", "LocalLMGGUF", "LocalLMTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "LocalLMGrammarTests", dependencies: ["LocalLMGrammar", "LocalLMTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "LocalLMRuntimeTests", dependencies: ["LocalLMRuntime", "LocalLMTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "LocalLMEngineTests",
            dependencies: ["LocalLMEngine", "LocalLMRuntime", "LocalLMGrammar", "LocalLMTokenizers", "LocalLMJinja", "LocalLMJSON", "LocalLMGGUF", "LocalLMTestSupport"],
            swiftSettings: swiftSettings
        ),
        // InMemoryLogging: the request-tracing test reads what a session logs.
        .testTarget(
            name: "LocalLMTests",
            dependencies: ["LocalLM", "LocalLMEngine", "LocalLMGrammar", "LocalLMJinja", "LocalLMSync", "LocalLMTestSupport",
                           .product(name: "InMemoryLogging", package: "swift-log")],
            swiftSettings: swiftSettings
        ),
        // The wire types, the remote backend and the server over loopback (the server tests need a real
        // model; the Python `openai` client and llama.cpp's server run from scripts/serve-tests.sh).
        .testTarget(
            name: "LocalLMServerTests",
            dependencies: ["LocalLM", "LocalLMOpenAI", "LocalLMOpenAIWire", "LocalLMServer", "LocalLMJSON",
                           "LocalLMTestSupport",
                           .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "Hummingbird", package: "hummingbird")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "LocalLMMacrosTests",
            dependencies: ["LocalLMMacros", .product(name: "SwiftSyntaxMacrosTestSupport", package: "swift-syntax")],
            swiftSettings: swiftSettings
        ),
    ]
)

// The examples join this package only where `LOCALLM_EXAMPLES=1` is set. scripts/test.sh (CI) sets
// it, so that one build compiles swift-syntax, LocalLM and the examples: building Examples/ as the
// package of its own that users open compiles all of LocalLM and swift-syntax a second time (about
// 25 minutes on a fresh 2-core machine). A package that depends on LocalLM never sees these
// targets and never resolves GRDB; Examples/Package.swift declares the same targets for users.
if Context.environment["LOCALLM_EXAMPLES"] == "1" {
    package.dependencies.append(.package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"))
    package.targets += [
        .target(
            name: "RecordsExample",
            dependencies: ["LocalLM", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Examples/Records/Sources/RecordsExample",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "locallm-records",
            dependencies: ["RecordsExample", "LocalLM", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Examples/Records/Sources/locallm-records",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RecordsExampleTests",
            dependencies: ["RecordsExample", "LocalLM"],
            path: "Examples/Records/Tests/RecordsExampleTests",
            swiftSettings: swiftSettings
        ),
    ]
}
