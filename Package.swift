// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "Nimbus",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "Nimbus", targets: ["Nimbus"]),
        .library(name: "NimbusWire", targets: ["NimbusWire"]),
        .library(name: "NimbusCloud", targets: ["NimbusCloud"]),
        .library(name: "NimbusServer", targets: ["NimbusServer"]),
        .library(name: "NimbusTesting", targets: ["NimbusTesting"]),
        .library(name: "NimbusData", targets: ["NimbusData"]),
        .executable(name: "nimbus", targets: ["nimbus"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // Server-side additions (issue 5): metrics, NIO types, an HTTP client for tests and bench-server.
        .package(url: "https://github.com/apple/swift-nio", from: "2.86.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Already in the graph through Hummingbird; the server's request-body deadline reads its HTTP parts.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // The @Managed macro (issue 13); 603 is the release made for Swift 6.3.
        .package(url: "https://github.com/swiftlang/swift-syntax", exact: "603.0.1"),
        // The console's server-rendered pages (issue 30); escapes HTML by default.
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        // `swift package generate-documentation` for the DocC catalogs (issue 28; CI builds them without warnings).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The object graph: model, objects, contexts, coordinator, stores, fetching.
        .target(
            name: "Nimbus",
            dependencies: [
                "NimbusMacros",
                "CNimbusThreadLocal",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The thread-local slot of Nimbus's queue checks: one load where pthread_getspecific is a call.
        .target(name: "CNimbusThreadLocal"),
        // The @Managed macro's implementation (a compiler plugin); declared in Nimbus.
        .macro(
            name: "NimbusMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ]
        ),
        // SwiftData's API (@Model, ModelContainer, ModelContext, FetchDescriptor) over Nimbus (issue 31).
        .target(
            name: "NimbusData",
            dependencies: ["Nimbus", "NimbusCloud", "NimbusMacros", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(
            name: "NimbusDataTests",
            dependencies: ["NimbusData", "Nimbus", "NimbusCloud", "NimbusServer", "NimbusTesting",
                           .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log")]
        ),
        // The TripsData sample: SwiftData code compiled unchanged but for `import NimbusData`.
        .testTarget(name: "TripsDataTests", dependencies: ["NimbusData"], path: "Examples/TripsData", exclude: ["README.md"]),
        // Helpers for tests of apps and of Nimbus itself: temporary stores, SQL recording.
        .target(name: "NimbusTesting", dependencies: ["Nimbus"]),
        // The sync protocol's Codable types; no I/O.
        .target(name: "NimbusWire"),
        // The mirroring engine: CloudContainer, record mapping, export/import, scheduler, transports.
        .target(
            name: "NimbusCloud",
            dependencies: [
                "Nimbus",
                "NimbusWire",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
            ]
        ),
        // The sync server: HTTP + WebSocket API, storage backends, push.
        .target(
            name: "NimbusServer",
            dependencies: [
                "NimbusWire",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Mustache", package: "swift-mustache"),
            ]
        ),
        .executableTarget(
            name: "nimbus",
            dependencies: [
                "Nimbus",
                "NimbusCloud",
                "NimbusServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "NimbusTests", dependencies: ["Nimbus", "NimbusTesting", "DurabilityWorker", "ConfinementWorker",
                                                   .product(name: "Logging", package: "swift-log")], resources: [.copy("Fixtures")]),
        // A process that saves in a loop until killed, for the crash-durability test.
        .executableTarget(name: "DurabilityWorker", dependencies: ["Nimbus", "NimbusTesting"], path: "Tests/DurabilityWorker"),
        // A process that uses a context off its queue, for the queue-confinement tests.
        .executableTarget(name: "ConfinementWorker", dependencies: ["Nimbus"], path: "Tests/ConfinementWorker"),
        .testTarget(name: "NimbusCLITests", dependencies: ["nimbus", "NimbusTesting"]),
        // The sample app from the seeds, syncing through CloudContainer as an app would.
        .executableTarget(name: "PostsSync", dependencies: ["Nimbus", "NimbusCloud"], path: "Examples/PostsSync"),
        .testTarget(
            name: "NimbusCloudTests",
            dependencies: ["NimbusCloud", "NimbusServer", "NimbusWire", "Nimbus", "NimbusTesting", "nimbus",
                           .product(name: "GRDB", package: "GRDB.swift")],
            resources: [.copy("Fixtures")]
        ),
        // Typed @Managed classes at work: the seeds' model over two stores, hierarchies, errors.
        .testTarget(name: "NimbusManagedTests", dependencies: ["Nimbus", "NimbusTesting"]),
        // Code that `nimbus codegen` wrote for real models, checked in; NimbusCodegenTests keeps
        // it up to date and uses it.
        .target(name: "NimbusCodegenFixture", dependencies: ["Nimbus"], path: "Tests/NimbusCodegenFixture"),
        .testTarget(
            name: "NimbusCodegenTests",
            dependencies: ["NimbusCodegenFixture", "Nimbus", "NimbusTesting"],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "NimbusMacrosTests",
            dependencies: [
                "NimbusMacros",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
            ]
        ),
        .testTarget(name: "NimbusWireTests", dependencies: ["NimbusWire"], resources: [.copy("Fixtures")]),
        .testTarget(
            name: "NimbusServerTests",
            dependencies: [
                "NimbusServer",
                "NimbusWire",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
