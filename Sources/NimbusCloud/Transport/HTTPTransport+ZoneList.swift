import AsyncHTTPClient
import Foundation
import NimbusWire

/// The zone listing the sharing client needs (see ``ZoneDirectory``).
extension HTTPTransport {
    /// The zones of the transport's database.
    func listZones() async throws -> [Zone] {
        let path = databasePath + "/zones"
        return try decode(ListZonesResponse.self, try await call(.GET, path, body: nil), path: path).zones
    }
}
