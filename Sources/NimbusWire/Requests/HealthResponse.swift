/// The answer to `GET /health`.
///
/// For example:
/// ```swift
/// let health = try decoder.decode(HealthResponse.self, from: body)
/// assert(health.status == "ok")
/// ```
public struct HealthResponse: Codable, Hashable, Sendable {
    /// `"ok"` when the server and its storage answer.
    public var status: String
    /// The storage backend: `"sqlite"` or `"postgres"`.
    public var storage: String
    /// The protocol version.
    public var protocolVersion: Int

    /// Creates the response.
    /// - Parameters:
    ///   - status: The status.
    ///   - storage: The backend's name.
    ///   - protocolVersion: The protocol version.
    public init(status: String, storage: String, protocolVersion: Int = NimbusWire.protocolVersion) {
        self.status = status
        self.storage = storage
        self.protocolVersion = protocolVersion
    }
}
