/// A zone as the server reports it: its id and where its change sequence stands.
///
/// For example:
/// ```swift
/// for zone in response.zones { print(zone.zoneID.zoneName, zone.changeToken) }
/// ```
public struct Zone: Codable, Hashable, Sendable {
    /// The zone's id.
    public var zoneID: ZoneID
    /// A token for the zone's current position; fetching changes since it returns only
    /// later changes.
    public var changeToken: ChangeToken

    /// Creates a zone description.
    /// - Parameters:
    ///   - zoneID: The zone's id.
    ///   - changeToken: The zone's current position.
    public init(zoneID: ZoneID, changeToken: ChangeToken) {
        self.zoneID = zoneID
        self.changeToken = changeToken
    }
}
