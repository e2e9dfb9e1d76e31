// swift-tools-version: 6.1
import PackageDescription

// Nimbus's benchmarks, in their own package so the library never depends on the
// benchmark tooling. Every scenario runs Nimbus, raw SQLite C and GRDB records side by side.
//
//     swift package --disable-sandbox benchmark
let package = Package(
    name: "NimbusBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Nimbus", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The scenarios, one implementation per contender.
        .target(
            name: "BenchmarkScenarios",
            dependencies: [
                .product(name: "Nimbus", package: "Nimbus"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // Every scenario side by side in one process; prints Markdown tables of ratios.
        .executableTarget(name: "NimbusBenchmarkReport", dependencies: ["BenchmarkScenarios"]),
        // Query, batch and history scenarios (issues 3 and 4), one implementation per contender.
        .target(
            name: "QueryScenarios",
            dependencies: [
                "BenchmarkScenarios",
                .product(name: "Nimbus", package: "Nimbus"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // The query scenarios side by side; prints Markdown tables of ratios (QUERY-BENCHMARKS.md).
        .executableTarget(name: "NimbusQueryBenchmarkReport", dependencies: ["QueryScenarios", "BenchmarkScenarios"]),
        // Sync benchmarks (issue 11): upload, download, save with mirroring on/off, propagation latency.
        .executableTarget(
            name: "NimbusSyncBenchmarkReport",
            dependencies: [
                .product(name: "Nimbus", package: "Nimbus"),
                .product(name: "NimbusCloud", package: "Nimbus"),
                .product(name: "NimbusServer", package: "Nimbus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NimbusWire", package: "Nimbus"),
            ]
        ),
        // package-benchmark's target (`swift package --disable-sandbox benchmark`).
        .executableTarget(
            name: "NimbusBenchmarks",
            dependencies: [
                "BenchmarkScenarios",
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/NimbusBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
