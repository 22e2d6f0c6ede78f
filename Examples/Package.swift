// swift-tools-version: 6.1
// LocalLM's examples, a package of their own so that only they resolve their dependencies (GRDB):
// a package that depends on LocalLM resolves swift-argument-parser, swift-log and swift-syntax, never GRDB.
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let package = Package(
    name: "LocalLMExamples",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "locallm-records", targets: ["locallm-records"]),
    ],
    dependencies: [
        // The library under demonstration, from this checkout.
        .package(name: "LocalLM", path: ".."),
        // CLI parsing for `locallm-records`.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // SQLite for the record collection (Debian: libsqlite3-dev).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // A tool-calling assistant over a SQLite record collection. The tools and the database live
        // in a library so tests reach them; the executable is a thin CLI.
        .target(
            name: "RecordsExample",
            dependencies: [
                .product(name: "LocalLM", package: "LocalLM"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Records/Sources/RecordsExample",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "locallm-records",
            dependencies: [
                "RecordsExample",
                .product(name: "LocalLM", package: "LocalLM"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Records/Sources/locallm-records",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RecordsExampleTests",
            dependencies: ["RecordsExample", .product(name: "LocalLM", package: "LocalLM")],
            path: "Records/Tests/RecordsExampleTests",
            swiftSettings: swiftSettings
        ),
    ]
)
