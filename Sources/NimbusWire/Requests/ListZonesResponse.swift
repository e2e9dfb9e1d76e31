/// The answer to `GET …/databases/{database}/zones`: every live zone of the database.
///
/// For example:
/// ```swift
/// let names = try decoder.decode(ListZonesResponse.self, from: body).zones.map(\.zoneID.zoneName)
/// ```
public struct ListZonesResponse: Codable, Hashable, Sendable {
    /// The zones, ordered by name.
    public var zones: [Zone]

    /// Creates the response.
    /// - Parameter zones: The zones.
    public init(zones: [Zone]) {
        self.zones = zones
    }
}
