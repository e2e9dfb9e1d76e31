import ArgumentParser
import Foundation
import Logging
import NimbusServer

extension NimbusCommand {
    /// `nimbus serve`: runs the sync server until SIGTERM or SIGINT.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the sync server.",
            discussion: "Example: nimbus serve --data-dir ./data --port 8080")

        @OptionGroup var storage: StorageOptions

        @Option(help: "The port to listen on; 0 picks a free one.")
        var port: Int = 8080

        @Option(help: "The address to bind.")
        var host: String = "127.0.0.1"

        @Option(name: .customLong("rate-limit"), help: "Requests per second allowed per token; 0 means unlimited.")
        var rateLimit: Double = 200

        @Option(name: .customLong("rate-burst"), help: "Requests a token may make in a burst.")
        var rateBurst: Double = 400

        @Option(name: .customLong("quota-bytes"), help: "Bytes each user may store unless their account says otherwise.")
        var quotaBytes: Int64 = 1 << 30

        @Option(name: .customLong("tombstone-horizon"), help: "Seconds that tombstones and change tokens live.")
        var tombstoneHorizon: Int64 = 30 * 24 * 3600

        @Option(name: .customLong("max-clock-skew"), help: "Seconds a field's HLC stamp may be ahead of the server's clock.")
        var maxClockSkew: Int64 = 600

        @Option(name: .customLong("idle-timeout"), help: "Seconds a connection may stay without traffic before it is closed.")
        var idleTimeout: Int64 = 60

        @Option(name: .customLong("request-head-timeout"), help: "Seconds a request's headers may take to arrive.")
        var requestHeadTimeout: Int64 = 20

        @Option(name: .customLong("request-body-timeout"), help: "Seconds a request's body may take, plus one per --min-body-rate bytes.")
        var requestBodyTimeout: Int64 = 20

        @Option(name: .customLong("min-body-rate"), help: "Bytes per second of a request body that earn it one more second.")
        var minBodyRate: Int = 500

        @Option(name: .customLong("max-connections-per-address"), help: "Connections one IP address may hold open.")
        var maxConnectionsPerAddress: Int = 1024

        @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
        var logLevel: String = "info"

        @Flag(help: "Verify the SQLite database first (SQLite's integrity check, values of the right types, known migrations) and serve only if it is sound.")
        var check = false

        func validate() throws {
            guard Logger.Level(rawValue: logLevel) != nil else {
                throw ValidationError("Unknown --log-level '\(logLevel)': use trace, debug, info, notice, warning, error or critical.")
            }
            do {
                try serverConfiguration().validate()
            } catch let error as ServerConfiguration.InvalidError {
                throw ValidationError(error.message)
            }
            if check, storage.postgresURL != nil {
                throw ValidationError("--check verifies a SQLite data folder; PostgreSQL has its own tools (amcheck, pg_dump).")
            }
        }

        func run() async throws {
            let configuration = serverConfiguration()
            if check {
                let path = configuration.dataDirectory + "/nimbus.sqlite"
                let problems = try SQLiteDatabaseCheck.verify(path: path)
                guard problems.isEmpty else {
                    FileHandle.standardError.write(Data("nimbus: \(path) failed its check:\n".utf8))
                    for problem in problems { FileHandle.standardError.write(Data("  \(problem)\n".utf8)) }
                    throw ExitCode(1)
                }
                FileHandle.standardOutput.write(Data("\(path) passed its check\n".utf8))
            }
            var logger = Logger(label: "nimbus")
            logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
            let host = configuration.host
            let server = try await NimbusServerApp.make(configuration: configuration, logger: logger) { port in
                FileHandle.standardOutput.write(Data("nimbus listening on http://\(host):\(port)\n".utf8))
            }
            try await server.run()
        }

        /// The server's configuration from the options (``validate()`` checks it).
        private func serverConfiguration() -> ServerConfiguration {
            var configuration = storage.configuration(port: port)
            configuration.host = host
            configuration.rateLimitPerSecond = rateLimit
            configuration.rateLimitBurst = rateBurst
            configuration.defaultQuotaBytes = quotaBytes
            configuration.tombstoneHorizonSeconds = tombstoneHorizon
            configuration.maximumClockSkew = .seconds(maxClockSkew)
            configuration.idleTimeout = .seconds(idleTimeout)
            configuration.requestHeadTimeout = .seconds(requestHeadTimeout)
            configuration.requestBodyTimeout = .seconds(requestBodyTimeout)
            configuration.minimumRequestBodyRate = minBodyRate
            configuration.maximumConnectionsPerAddress = maxConnectionsPerAddress
            return configuration
        }
    }
}
