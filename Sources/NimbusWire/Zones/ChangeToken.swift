/// An opaque position in a zone's or a database's change sequence.
///
/// Clients store tokens and send them back; they never look inside. A token the server no
/// longer honours (older than its tombstone horizon, or from a deleted zone) gets
/// ``WireError/Code/changeTokenExpired``, and the client refetches the zone from scratch.
///
/// For example:
/// ```swift
/// let request = FetchZoneChangesRequest(since: savedToken, limit: 200)
/// ```
public struct ChangeToken: Codable, Hashable, Sendable, CustomStringConvertible {
    /// The server's encoding of the position.
    public var rawValue: String

    /// Wraps a token string received from the server.
    /// - Parameter rawValue: The token's text.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}
