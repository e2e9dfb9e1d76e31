import AsyncHTTPClient
import Foundation
import NimbusWire

/// Share routes of the sync server (decision server-0025): the owner's share of a zone, the
/// invitation URL, acceptance, leaving and the listing of a user's shares.
extension HTTPTransport {
    private var containerPath: String { "\(NimbusWire.pathPrefix)/containers/\(Self.escape(options.containerIdentifier))" }

    private func sharePath(_ zone: ZoneID) -> String {
        if let owner = zone.ownerName {
            return containerPath + "/databases/shared/zones/\(Self.escape(zone.zoneName))/share?owner="
                + (owner.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? owner)
        }
        return containerPath + "/databases/private/zones/\(Self.escape(zone.zoneName))/share"
    }

    /// Creates or replaces the share of one of the caller's zones.
    func saveShare(zone: ZoneID, request: SaveShareRequest) async throws -> ZoneShare {
        let path = sharePath(ZoneID(zoneName: zone.zoneName))
        return try decode(ZoneShare.self, try await call(.PUT, path, body: try JSONEncoder().encode(request)), path: path)
    }

    /// The share of a zone (the caller's own, or, with an owner, one shared with the caller);
    /// `nil` when the zone is not shared.
    func fetchShare(zone: ZoneID) async throws -> ZoneShare? {
        let path = sharePath(zone)
        let (status, body) = try await send(.GET, path, body: nil)
        if status == 404, (try? JSONDecoder().decode(ErrorResponse.self, from: body))?.error.code == .unknownItem { return nil }
        guard status == 200 else { throw Self.error(status: status, body: body, path: path) }
        return try decode(ZoneShare.self, body, path: path)
    }

    /// Ends the share of one of the caller's zones (every participant loses it).
    func deleteShare(zone: ZoneID) async throws {
        _ = try await call(.DELETE, sharePath(ZoneID(zoneName: zone.zoneName)), body: nil)
    }

    /// Leaves a share of another user's zone.
    func leaveShare(zone: ZoneID) async throws {
        _ = try await call(.DELETE, sharePath(zone), body: nil)
    }

    /// What a share's secret leads to, for the caller.
    func shareMetadata(secret: String) async throws -> ShareMetadata {
        let path = "\(NimbusWire.pathPrefix)/shares/\(Self.escape(secret))"
        return try decode(ShareMetadata.self, try await call(.GET, path, body: nil), path: path)
    }

    /// Accepts a share with its secret.
    func acceptShare(secret: String) async throws -> ShareMetadata {
        let path = "\(NimbusWire.pathPrefix)/shares/\(Self.escape(secret))/accept"
        return try decode(ShareMetadata.self, try await call(.POST, path, body: nil), path: path)
    }

    /// The caller's shares in the container: owned and taken part in.
    func listShares() async throws -> ShareListResponse {
        let path = containerPath + "/shares"
        return try decode(ShareListResponse.self, try await call(.GET, path, body: nil), path: path)
    }

    /// The zones of the transport's database.
    func listZones() async throws -> [Zone] {
        let path = databasePath + "/zones"
        return try decode(ListZonesResponse.self, try await call(.GET, path, body: nil), path: path).zones
    }
}
