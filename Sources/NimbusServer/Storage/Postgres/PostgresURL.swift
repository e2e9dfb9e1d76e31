import Foundation
import NimbusWire
import PostgresNIO

/// A `postgres://user:password@host:port/database` URL, read once and turned into the
/// configurations of the client pool and of the push listener's own connection.
///
/// A `?host=/path/to/folder` query item selects the Unix socket in that folder instead of TCP.
///
/// For example:
/// ```swift
/// let url = try PostgresURL("postgres://nimbus:secret@127.0.0.1:5432/nimbus")
/// let client = PostgresClient(configuration: url.clientConfiguration)
/// ```
struct PostgresURL: Sendable {
    var user: String
    var password: String?
    var database: String?
    var host: String
    var port: Int
    /// The Unix socket's path, when the URL names a socket folder.
    var socketPath: String?

    /// Reads a URL.
    /// - Throws: `invalidArguments` for a URL that is not a PostgreSQL URL.
    init(_ url: String) throws {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
            let user = components.user, !user.isEmpty
        else {
            throw WireError(.invalidArguments, "'\(url)' is not a PostgreSQL URL like postgres://user:password@host:5432/database.")
        }
        self.user = user
        self.password = components.password
        self.database = components.path.isEmpty ? nil : String(components.path.dropFirst())
        self.host = components.host ?? "127.0.0.1"
        self.port = components.port ?? 5432
        let socket = components.queryItems?.first { $0.name == "host" }?.value
        self.socketPath = socket.flatMap { $0.hasPrefix("/") ? "\($0)/.s.PGSQL.\(port)" : nil }
    }

    /// The configuration of the client pool.
    var clientConfiguration: PostgresClient.Configuration {
        if let socketPath {
            return PostgresClient.Configuration(unixSocketPath: socketPath, username: user, password: password, database: database)
        }
        return PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: .disable)
    }

    /// The configuration of a single connection outside the pool (the push listener's).
    var connectionConfiguration: PostgresConnection.Configuration {
        if let socketPath {
            return PostgresConnection.Configuration(unixSocketPath: socketPath, username: user, password: password, database: database)
        }
        return PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: .disable)
    }
}
