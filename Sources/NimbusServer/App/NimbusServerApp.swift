import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NimbusWire
import ServiceLifecycle

/// A configured Nimbus server: storage, routes, push and maintenance, ready to run.
///
/// For example:
/// ```swift
/// let server = try await NimbusServerApp.make(configuration: ServerConfiguration(dataDirectory: dir, port: 8080))
/// try await server.run()   // until SIGTERM or SIGINT, then finishes in-flight requests
/// ```
public struct NimbusServerApp: Sendable {
    package let services: ServerServices
    /// The Nimbus Console at `/console`.
    package let console: Console
    private let application: Application<RouterResponder<NimbusRequestContext>>
    /// The data directory's lock (SQLite only), released when ``run()`` returns.
    private let lock: DataDirectoryLock?

    /// Builds a server.
    /// - Parameters:
    ///   - configuration: Where data lives and where to listen.
    ///   - clock: The clock; the system clock by default.
    ///   - logger: The logger; one labelled `nimbus` by default.
    ///   - onServerRunning: Called with the bound port once the server accepts connections.
    /// - Throws: ``ServerConfiguration/InvalidError`` for settings that cannot work;
    ///   `DataDirectoryLock.LockedError` when another server uses the SQLite data folder;
    ///   errors opening the data folder or the storage.
    public static func make(
        configuration: ServerConfiguration,
        clock: ServerClock = .system,
        logger: Logger = Logger(label: "nimbus"),
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws -> NimbusServerApp {
        try configuration.validate()
        try DataDirectory.prepare(configuration.dataDirectory)
        // With SQLite, push is delivered in-process: a second server on the same file would
        // miss the first one's changes. PostgreSQL servers share push and may share the folder.
        let lock = configuration.postgresURL == nil ? try DataDirectoryLock(directory: configuration.dataDirectory) : nil
        let backend: StorageFactory.Backend
        do {
            backend = try StorageFactory.make(configuration: configuration, logger: logger)
        } catch {
            lock?.release()
            throw error
        }
        let metrics = ServerMetrics()
        let assets = try AssetStore(root: configuration.dataDirectory + "/assets")
        // Only the server holding the folder's lock may: PostgreSQL servers share the folder.
        if lock != nil {
            let removed = assets.removeLeftoverUploads()
            if removed > 0 { logger.notice("removed unfinished uploads of an earlier run", metadata: ["files": "\(removed)"]) }
        }
        let services = ServerServices(
            configuration: configuration, storage: backend.storage, clock: clock, metrics: metrics,
            assets: assets,
            authenticator: Authenticator(
                storage: backend.storage,
                limiter: RateLimiter(perSecond: configuration.rateLimitPerSecond, burst: configuration.rateLimitBurst),
                clock: clock))

        let console: Console
        do {
            console = try Console(services: services)
        } catch {
            lock?.release()
            throw error
        }
        let router = Router(context: NimbusRequestContext.self)
        router.middlewares.add(RequestLogMiddleware(
            metrics: metrics, telemetry: console.telemetry, clock: clock,
            pushConnections: { [feed = services.changeFeed] in feed.connectedCount }))
        router.middlewares.add(ErrorMiddleware())
        OperationsRoutes(services: services).register(on: router)
        ConsoleRoutes(console: console).register(on: router)
        let containers = router.group("\(NimbusWire.pathPrefix)/containers/:container").add(middleware: AuthMiddleware(authenticator: services.authenticator))
        AssetRoutes(services: services).register(on: containers)
        AccountRoutes(services: services).register(on: containers)
        ShareInvitationRoutes(services: services).registerListing(on: containers)
        ShareInvitationRoutes(services: services).registerURLs(
            on: router.group("\(NimbusWire.pathPrefix)/shares").add(middleware: AuthMiddleware(authenticator: services.authenticator)))
        let database = containers.group("databases/:database")
        ZoneRoutes(services: services).register(on: database)
        RecordRoutes(services: services).register(on: database)
        ChangeRoutes(services: services).register(on: database)
        ShareRoutes(services: services).register(on: database)
        PushRoutes(services: services).registerPlainRequests(on: database)

        let webSocketRouter = Router(context: NimbusRequestContext.self)
        PushRoutes(services: services).register(on: webSocketRouter)

        var application = Application(
            router: router,
            server: Self.guardedServer(webSocketRouter: webSocketRouter, configuration: configuration),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "nimbus"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger)
        application.addServices(backend.services)
        application.addServices(MaintenanceService(services: services, logger: logger))
        application.addServices(FeedShutdownService(feed: backend.storage.changeFeed))
        application.addServices(ConsoleShutdownService(events: console.events))
        application.beforeServerStarts {
            try await backend.storage.migrate()
        }
        return NimbusServerApp(services: services, console: console, application: application, lock: lock)
    }

    /// HTTP/1 with the push upgrade (as `.http1WebSocketUpgrade(webSocketRouter:)`), each
    /// connection behind the first-byte timeout, the request head and body deadlines and the
    /// per-address connection cap, and Hummingbird's idle timeout between requests.
    private static func guardedServer(webSocketRouter: Router<NimbusRequestContext>, configuration: ServerConfiguration) -> HTTPServerBuilder {
        let limiter = ConnectionLimiter(maximumPerAddress: configuration.maximumConnectionsPerAddress)
        let webSocketResponder = webSocketRouter.buildResponder()
        let idle = TimeAmount(configuration.idleTimeout)
        let bodyTimeout = TimeAmount(configuration.requestBodyTimeout)
        let bodyRate = configuration.minimumRequestBodyRate
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [RequestBodyTimeout(timeout: bodyTimeout, minimumRate: bodyRate)],
            idleTimeout: idle)
        return HTTPServerBuilder { responder in
            GuardedChildChannel(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder,
                    configuration: .init(http1: http1)),
                limiter: limiter, idleTimeout: configuration.idleTimeout,
                requestHeadTimeout: configuration.requestHeadTimeout)
        }
    }

    /// Runs until SIGTERM or SIGINT, then stops accepting connections, finishes in-flight
    /// requests, closes push sockets and the storage.
    public func run() async throws {
        defer { lock?.release() }
        try await application.runService()
    }

    /// Runs until the calling task is cancelled or a graceful shutdown is triggered (tests).
    public func runWithoutSignals() async throws {
        defer { lock?.release() }
        try await application.run()
    }

    /// The application as a service, to run in a `ServiceGroup` of one's own.
    public var service: any Service { application }
}

/// Closes every push subscription when the server shuts down, so WebSocket handlers end.
struct FeedShutdownService: Service {
    let feed: ChangeFeed

    func run() async throws {
        try? await gracefulShutdown()
        feed.finishAll()
    }
}
