import ArgumentParser
import NimbusServer

/// Where the server's data lives, shared by `serve`, `users` and `tokens`.
struct StorageOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "The folder for the SQLite file and assets.")
    var dataDirectory: String

    @Option(name: .customLong("postgres"), help: "A PostgreSQL URL (postgres://user:password@host:port/database); SQLite when omitted.")
    var postgresURL: String?

    func configuration(port: Int = 0) -> ServerConfiguration {
        var configuration = ServerConfiguration(dataDirectory: dataDirectory, port: port)
        configuration.postgresURL = postgresURL
        return configuration
    }
}
