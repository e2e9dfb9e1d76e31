import Foundation
import NimbusWire

/// Zone shares and their invitations (server-0009, server-0025): saving, reading, deleting and
/// leaving a share, what a share URL offers, accepting it, and the caller's shares.
///
/// A ``ZoneID`` without ``ZoneID/ownerName`` is one of the caller's own zones (reached
/// through their private database); with an owner it is someone else's zone shared with the
/// caller (reached through their shared database with `?owner=`).
///
/// For example:
/// ```swift
/// let share = try await transport.saveShare(zone: ZoneID(zoneName: "list"), request: SaveShareRequest(
///     participants: [ShareParticipant(userName: "grace", permission: .readWrite)]))
/// // grace's device:
/// let metadata = try await graceTransport.acceptShare(secret: HTTPTransport.shareSecret(in: share.url!)!)
/// ```
extension HTTPTransport {
    /// Creates the share of one of the caller's zones, or replaces its participants.
    /// - Parameters:
    ///   - zone: The caller's zone (no owner name).
    ///   - request: Every participant, and the public permission.
    /// - Returns: The share as its owner sees it, with its URL.
    /// - Throws: ``CloudError`` (`zoneNotFound`, `permissionFailure`, `limitExceeded`, or the
    ///   server's `invalidArguments` as `server` with ``CloudError/wireError``).
    public func saveShare(zone: ZoneID, request: SaveShareRequest) async throws -> ZoneShare {
        let path = try sharePath(zone, owned: true)
        return try decode(ZoneShare.self, try await call(.PUT, path, body: try JSONEncoder().encode(request)), path: path)
    }

    /// The share of a zone: the caller's own (with its URL), or one they accepted (without).
    /// - Parameter zone: The zone; with an owner name for someone else's zone.
    /// - Returns: The share, or `nil` when the zone is not shared (or, for someone else's zone,
    ///   not shared with the caller).
    /// - Throws: ``CloudError``; `zoneNotFound` when the caller's own zone does not exist.
    public func fetchShare(zone: ZoneID) async throws -> ZoneShare? {
        let path = try sharePath(zone, owned: zone.ownerName == nil)
        let (status, body) = try await send(.GET, path, body: nil)
        guard status == 200 else {
            let error = Self.error(status: status, body: body, path: path)
            if error.wireError?.code == .unknownItem { return nil }
            if zone.ownerName != nil, error.wireError?.code == .zoneNotFound { return nil }
            throw error
        }
        return try decode(ZoneShare.self, body, path: path)
    }

    /// Ends the share of one of the caller's zones: every participant loses access.
    /// - Parameter zone: The caller's zone (no owner name).
    /// - Throws: ``CloudError``; the server's `unknownItem` when the zone is not shared.
    public func deleteShare(zone: ZoneID) async throws {
        _ = try await call(.DELETE, try sharePath(zone, owned: true), body: nil)
    }

    /// Leaves a share the caller accepted (their state becomes `left`; they may accept again
    /// with the URL while the owner keeps them on the share).
    /// - Parameter zone: The zone, with its owner's name.
    /// - Throws: ``CloudError``; `zoneNotFound` when the caller is not an accepted participant.
    public func leaveShare(zone: ZoneID) async throws {
        _ = try await call(.DELETE, try sharePath(zone, owned: false), body: nil)
    }

    /// What the share behind a URL offers the caller, before accepting.
    /// - Parameter secret: The secret of the share's URL (see ``shareSecret(in:)``).
    /// - Throws: ``CloudError`` with the server's `unknownItem` when the URL offers nothing
    ///   (unknown, not for the caller, or the caller owns the share).
    public func shareMetadata(secret: String) async throws -> ShareMetadata {
        let path = Self.sharesPath(secret)
        return try decode(ShareMetadata.self, try await call(.GET, path, body: nil), path: path)
    }

    /// Accepts the share behind a URL: its zone enters the caller's shared database. Accepting
    /// again changes nothing.
    /// - Parameter secret: The secret of the share's URL.
    /// - Throws: as ``shareMetadata(secret:)``.
    public func acceptShare(secret: String) async throws -> ShareMetadata {
        let path = Self.sharesPath(secret) + "/accept"
        return try decode(ShareMetadata.self, try await call(.POST, path, body: nil), path: path)
    }

    /// The caller's shares in the container: those they own (with URLs and every
    /// participant's state) and those naming them, invited or accepted.
    public func listShares() async throws -> ShareListResponse {
        let path = "\(NimbusWire.pathPrefix)/containers/\(Self.escape(options.containerIdentifier))/shares"
        return try decode(ShareListResponse.self, try await call(.GET, path, body: nil), path: path)
    }

    /// The secret in a share URL (`…/v1/shares/{secret}`, absolute or relative), or `nil`.
    public static func shareSecret(in url: String) -> String? {
        let marker = "\(NimbusWire.pathPrefix)/shares/"
        guard let range = url.range(of: marker, options: .backwards) else { return nil }
        var secret = url[range.upperBound...]
        if let end = secret.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) { secret = secret[..<end] }
        return secret.isEmpty ? nil : String(secret)
    }

    // MARK: Paths

    static func sharesPath(_ secret: String) -> String {
        "\(NimbusWire.pathPrefix)/shares/\(escape(secret))"
    }

    /// `…/databases/private/zones/{zone}/share`, or the shared database's with `?owner=`.
    func sharePath(_ zone: ZoneID, owned: Bool) throws -> String {
        let container = "\(NimbusWire.pathPrefix)/containers/\(Self.escape(options.containerIdentifier))/databases"
        if owned {
            return container + "/private/zones/\(Self.escape(zone.zoneName))/share"
        }
        guard let owner = zone.ownerName, !owner.isEmpty else {
            throw CloudError(.invalidConfiguration, "a zone shared with you is named with its owner: set the ZoneID's ownerName")
        }
        let query = owner.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+#"))) ?? owner
        return container + "/shared/zones/\(Self.escape(zone.zoneName))/share?owner=\(query)"
    }
}
