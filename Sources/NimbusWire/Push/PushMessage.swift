/// A message the server sends down a device's push WebSocket.
///
/// Push only says *that* something changed and where; the device then fetches changes.
/// On connecting with `?since=<database token>` a device first receives a message for
/// every zone that changed while it was away.
///
/// For example:
/// ```swift
/// let message = try JSONDecoder().decode(PushMessage.self, from: frame)
/// if message.kind == .zoneChanged { try await fetchZoneChanges(message.zoneID!) }
/// ```
public struct PushMessage: Codable, Hashable, Sendable {
    /// What happened.
    public enum Kind: String, Codable, Hashable, Sendable {
        /// Records of ``PushMessage/zoneID`` changed.
        case zoneChanged
        /// ``PushMessage/zoneID`` was deleted.
        case zoneDeleted
        /// The connection is live; ``PushMessage/databaseChangeToken`` is the current position.
        case hello
    }

    /// The protocol version of the message.
    public var version: Int
    /// What happened.
    public var kind: Kind
    /// The container.
    public var container: String
    /// The database.
    public var database: DatabaseScope
    /// The zone concerned; `nil` for ``Kind/hello``.
    public var zoneID: ZoneID?
    /// The zone's position after the change, for ``Kind/zoneChanged``.
    public var zoneChangeToken: ChangeToken?
    /// The database's position after the change.
    public var databaseChangeToken: ChangeToken

    /// Creates a message.
    /// - Parameters:
    ///   - kind: What happened.
    ///   - container: The container.
    ///   - database: The database.
    ///   - zoneID: The zone.
    ///   - zoneChangeToken: The zone's position.
    ///   - databaseChangeToken: The database's position.
    public init(
        kind: Kind,
        container: String,
        database: DatabaseScope,
        zoneID: ZoneID? = nil,
        zoneChangeToken: ChangeToken? = nil,
        databaseChangeToken: ChangeToken
    ) {
        self.version = NimbusWire.protocolVersion
        self.kind = kind
        self.container = container
        self.database = database
        self.zoneID = zoneID
        self.zoneChangeToken = zoneChangeToken
        self.databaseChangeToken = databaseChangeToken
    }
}
