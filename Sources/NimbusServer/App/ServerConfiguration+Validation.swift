import Foundation

extension ServerConfiguration {
    /// A setting that cannot work, found before the server starts.
    ///
    /// For example:
    /// ```swift
    /// do { try configuration.validate() } catch let error as ServerConfiguration.InvalidError { print(error.message) }
    /// ```
    public struct InvalidError: Error, CustomStringConvertible, Sendable {
        /// What is wrong and how to fix it.
        public var message: String
        /// The message.
        public var description: String { message }
    }

    /// Checks the settings that would otherwise fail at run time; ``NimbusServerApp/make(configuration:clock:logger:onServerRunning:)``
    /// calls it first.
    ///
    /// A rate limit of 0 means unlimited; a negative or non-finite rate, or a burst below one
    /// request (which would refuse every request forever), is refused.
    ///
    /// For example:
    /// ```swift
    /// var configuration = ServerConfiguration(dataDirectory: "./data")
    /// configuration.rateLimitPerSecond = 0   // unlimited
    /// try configuration.validate()
    /// ```
    /// - Throws: ``InvalidError`` naming the setting.
    public func validate() throws {
        guard rateLimitPerSecond.isFinite, rateLimitPerSecond >= 0 else {
            throw InvalidError(message: "The rate limit \(rateLimitPerSecond) is not a finite number of requests per second ≥ 0 (--rate-limit; 0 means unlimited).")
        }
        guard rateLimitBurst.isFinite, rateLimitBurst >= 1 else {
            throw InvalidError(message: "The rate burst \(rateLimitBurst) must be a finite number of requests ≥ 1 (--rate-burst), else every request would be refused.")
        }
        guard rateLimitPerSecond <= 1e9, rateLimitBurst <= 1e9 else {
            throw InvalidError(message: "The rate limit and burst must be at most 1,000,000,000 (--rate-limit, --rate-burst); use 0 for unlimited.")
        }
        try Self.require(maximumClockSkew, "maximum clock skew (--max-clock-skew)", in: .seconds(1)...Self.longestDuration)
        try Self.require(pushAuthenticationInterval, "push authentication interval", in: .milliseconds(1)...Self.longestDuration)
        try Self.require(postgresHeartbeatInterval, "PostgreSQL heartbeat interval", in: .milliseconds(1)...Self.longestDuration)
        try Self.require(idleTimeout, "idle timeout (--idle-timeout)", in: .milliseconds(1)...Self.longestDuration)
        try Self.require(requestHeadTimeout, "request head timeout (--request-head-timeout)", in: .milliseconds(1)...Self.longestDuration)
        try Self.require(requestBodyTimeout, "request body timeout (--request-body-timeout)", in: .milliseconds(1)...Self.longestDuration)
        try Self.require(Int64(minimumRequestBodyRate), "minimum request body rate in bytes per second (--min-body-rate)", in: 1...(1 << 40))
        try Self.require(Int64(maximumConnectionsPerAddress), "connection cap per address (--max-connections-per-address)", in: 1...1_000_000)
        try Self.require(maximumChangePageBytes, "change page size in bytes", in: 1...(1 << 40))
        try Self.require(Int64(port), "port (--port)", in: 0...65_535)
        try Self.require(tombstoneHorizonSeconds, "tombstone horizon in seconds (--tombstone-horizon)", in: 1...Self.longestSeconds)
        try Self.require(assetGraceSeconds, "asset grace period in seconds", in: 0...Self.longestSeconds)
        try Self.require(maintenanceIntervalSeconds, "maintenance interval in seconds (0 disables it)", in: 0...Self.longestSeconds)
        try Self.require(defaultQuotaBytes, "default quota in bytes (--quota-bytes)", in: 0...Self.largestQuotaBytes)
        try Self.require(maximumAssetBytes, "largest asset in bytes", in: 1...Self.largestQuotaBytes)
    }

    /// The longest span any setting in seconds may have: 100 years (in milliseconds, the
    /// server's clock unit, it leaves room for any date this century).
    package static let longestSeconds: Int64 = 100 * 365 * 24 * 3600
    /// The longest duration a timeout or interval may have: 100 years.
    static let longestDuration = Duration.seconds(longestSeconds)
    /// The largest quota: 1 EiB, far from overflowing a byte count.
    package static let largestQuotaBytes: Int64 = 1 << 60

    private static func require(_ value: Int64, _ name: String, in range: ClosedRange<Int64>) throws {
        guard range.contains(value) else {
            throw InvalidError(message: "The \(name) \(value) is out of range: it must be between \(range.lowerBound) and \(range.upperBound).")
        }
    }

    private static func require(_ value: Duration, _ name: String, in range: ClosedRange<Duration>) throws {
        guard range.contains(value) else {
            throw InvalidError(message: "The \(name) \(value) is out of range: it must be between \(range.lowerBound) and \(range.upperBound).")
        }
    }
}
