import ArgumentParser
import NimbusServer

/// Where the server's data lives, shared by `serve`, `users` and `tokens`.
struct StorageOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "The folder for the SQLite file and assets.")
    var dataDirectory: String

    @Option(name: .customLong("postgres"), help: "A PostgreSQL URL (postgres://user:password@host:port/database); SQLite when omitted.")
    var postgresURL: String?

    @Option(
        name: .customLong("postgres-replica"),
        help: "A streaming hot-standby replica of the --postgres database; change fetches and lookups read it once it has caught up.")
    var postgresReplicaURL: String?

    func configuration(port: Int = 0) -> ServerConfiguration {
        var configuration = ServerConfiguration(dataDirectory: dataDirectory, port: port)
        configuration.postgresURL = postgresURL
        configuration.postgresReplicaURL = postgresReplicaURL
        return configuration
    }
}
