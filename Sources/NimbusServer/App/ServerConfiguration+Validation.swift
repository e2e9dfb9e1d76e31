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
        guard maximumClockSkew > .zero else {
            throw InvalidError(message: "The maximum clock skew must be positive.")
        }
        guard pushAuthenticationInterval > .zero else {
            throw InvalidError(message: "The push authentication interval must be positive.")
        }
        guard idleTimeout > .zero else {
            throw InvalidError(message: "The idle timeout must be positive.")
        }
        guard requestHeadTimeout > .zero, requestBodyTimeout > .zero else {
            throw InvalidError(message: "The request head and body timeouts must be positive.")
        }
        guard minimumRequestBodyRate >= 1 else {
            throw InvalidError(message: "The minimum request body rate must be at least 1 byte per second.")
        }
        guard maximumConnectionsPerAddress >= 1 else {
            throw InvalidError(message: "The connection cap per address must be at least 1.")
        }
        guard maximumChangePageBytes >= 1 else {
            throw InvalidError(message: "The change page size in bytes must be positive.")
        }
        guard port >= 0, port <= 65_535 else {
            throw InvalidError(message: "The port \(port) is not between 0 and 65535.")
        }
    }
}
