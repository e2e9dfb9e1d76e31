/// The answer to `DELETE …/zones/{zone}`: the deleted zone and the database's position
/// after the deletion.
///
/// Deleting a zone deletes its records; devices learn of it by push and by fetching
/// database changes.
///
/// For example:
/// ```swift
/// let response = try decoder.decode(DeleteZoneResponse.self, from: body)
/// ```
public struct DeleteZoneResponse: Codable, Hashable, Sendable {
    /// The zone that was deleted.
    public var zoneID: ZoneID
    /// The database's change position after the deletion.
    public var databaseChangeToken: ChangeToken

    /// Creates the response.
    /// - Parameters:
    ///   - zoneID: The deleted zone.
    ///   - databaseChangeToken: The database's position afterwards.
    public init(zoneID: ZoneID, databaseChangeToken: ChangeToken) {
        self.zoneID = zoneID
        self.databaseChangeToken = databaseChangeToken
    }
}
