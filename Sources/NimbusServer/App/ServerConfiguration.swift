import Foundation

/// How a Nimbus server runs: where it keeps data, where it listens, and its limits.
///
/// For example:
/// ```swift
/// var configuration = ServerConfiguration(dataDirectory: "/var/lib/nimbus")
/// configuration.port = 8080
/// ```
public struct ServerConfiguration: Sendable {
    /// The folder holding the SQLite file and the assets.
    public var dataDirectory: String
    /// The address to bind; loopback by default.
    public var host: String
    /// The port to bind; 0 picks a free one.
    public var port: Int
    /// A PostgreSQL URL (`postgres://user:password@host:port/database`); `nil` uses SQLite.
    public var postgresURL: String?
    /// A streaming hot-standby replica of ``postgresURL``'s database, which change fetches and
    /// lookups read when it has caught up (decision server-0027); `nil` reads the primary only.
    public var postgresReplicaURL: String?
    /// Requests each token may make per second, on average.
    public var rateLimitPerSecond: Double
    /// Requests a token may make in a burst.
    public var rateLimitBurst: Double
    /// Bytes a user may store when their account sets no quota.
    public var defaultQuotaBytes: Int64
    /// How long tombstones (and so change tokens) live, in seconds.
    public var tombstoneHorizonSeconds: Int64
    /// How long an uploaded asset may stay unreferenced before collection, in seconds.
    public var assetGraceSeconds: Int64
    /// The largest asset, in bytes.
    public var maximumAssetBytes: Int64
    /// How often tombstones and assets are collected, in seconds; 0 disables the job.
    public var maintenanceIntervalSeconds: Int64
    /// How often each process sends a heartbeat on PostgreSQL's change channel; its push
    /// listener reconnects when a heartbeat PostgreSQL accepted is not heard back within three
    /// intervals. Unused with SQLite.
    ///
    /// For example:
    /// ```swift
    /// configuration.postgresHeartbeatInterval = .seconds(5)   // a stuck listener is replaced within ~15 s
    /// ```
    public var postgresHeartbeatInterval: Duration
    /// How far ahead of the server's clock a field's HLC stamp may be; saves and deletions
    /// stamped later are refused with `invalidArguments`, so that a device with a wrong clock
    /// cannot make its edits win forever. 10 minutes by default.
    ///
    /// For example:
    /// ```swift
    /// configuration.maximumClockSkew = .seconds(60)
    /// ```
    public var maximumClockSkew: Duration
    /// How often an open push socket checks again that its token is still valid; a socket
    /// whose token was revoked or expired is closed. 30 seconds by default.
    public var pushAuthenticationInterval: Duration
    /// How long a connection may stay without a byte read or written before it is closed,
    /// including one that never sends a request. 60 seconds by default; push sockets are
    /// pinged every 30 s and stay open.
    public var idleTimeout: Duration
    /// How long a request's head (request line and headers) may take from its first byte; a
    /// connection that drips its headers slower is closed. 20 seconds by default.
    public var requestHeadTimeout: Duration
    /// How long a request's body may take from its head, beyond one more second for every
    /// ``minimumRequestBodyRate`` bytes received; a slower body closes the connection.
    /// 20 seconds by default.
    ///
    /// For example, a 1 MB upload may take 20 s + 1,000,000 / 500 s ≈ 33 minutes by default:
    /// ```swift
    /// configuration.requestBodyTimeout = .seconds(10)
    /// configuration.minimumRequestBodyRate = 10_000
    /// ```
    public var requestBodyTimeout: Duration
    /// The bytes per second of a request body that earn it one more second; see
    /// ``requestBodyTimeout``. 500 by default.
    public var minimumRequestBodyRate: Int
    /// The most connections one IP address may hold open; later ones are closed at once.
    /// 1024 by default.
    ///
    /// For example:
    /// ```swift
    /// configuration.maximumConnectionsPerAddress = 64
    /// ```
    public var maximumConnectionsPerAddress: Int
    /// The record bytes a page of zone changes holds at most (the first record always fits,
    /// so a page may be up to one record, 1 MB, larger). 8 MB by default.
    public var maximumChangePageBytes: Int64

    /// Creates a configuration with the defaults.
    /// - Parameters:
    ///   - dataDirectory: The data folder.
    ///   - port: The port; 0 picks a free one.
    public init(dataDirectory: String, port: Int = 8080) {
        self.dataDirectory = dataDirectory
        self.host = "127.0.0.1"
        self.port = port
        self.postgresURL = nil
        self.postgresReplicaURL = nil
        self.rateLimitPerSecond = 200
        self.rateLimitBurst = 400
        self.defaultQuotaBytes = 1 << 30
        self.tombstoneHorizonSeconds = 30 * 24 * 3600
        self.assetGraceSeconds = 3600
        self.maximumAssetBytes = 1 << 30
        self.maintenanceIntervalSeconds = 300
        self.postgresHeartbeatInterval = .seconds(2)
        self.maximumClockSkew = .seconds(600)
        self.pushAuthenticationInterval = .seconds(30)
        self.idleTimeout = .seconds(60)
        self.requestHeadTimeout = .seconds(20)
        self.requestBodyTimeout = .seconds(20)
        self.minimumRequestBodyRate = 500
        self.maximumConnectionsPerAddress = 1024
        self.maximumChangePageBytes = 8 << 20
    }
}
