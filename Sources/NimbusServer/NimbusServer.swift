import NimbusWire

/// The Nimbus sync server: an HTTP + WebSocket API over records in zones, stored in SQLite
/// (embedded) or PostgreSQL.
///
/// For example:
/// ```swift
/// let server = try await NimbusServerApp.make(configuration: .init(dataDirectory: dir, port: 8080))
/// try await server.application.runService()
/// ```
public enum NimbusServer {
    /// The protocol version the server speaks.
    public static let protocolVersion = NimbusWire.protocolVersion
}
