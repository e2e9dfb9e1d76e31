import Foundation
import NimbusWire

/// Where and how a store mirrors: the sync server, the container, the database and the
/// device's credentials. Set it on a store description to mirror that store; stores without
/// options stay local.
///
/// For example:
/// ```swift
/// var cloud = PersistentStoreDescription(url: storeURL)
/// cloud.configuration = "Cloud"
/// cloud.cloudContainerOptions = CloudContainerOptions(
///     serverURL: URL(string: "http://127.0.0.1:8080")!,
///     containerIdentifier: "com.example.posts", token: deviceToken)
/// ```
public struct CloudContainerOptions: Sendable, Hashable, Codable {
    /// The sync server's base URL (`http://host:port`).
    public var serverURL: URL
    /// The container (app) identifier on the server.
    public var containerIdentifier: String
    /// The database the store mirrors to (`private` by default).
    public var databaseScope: DatabaseScope
    /// The device's bearer token (`nimbus tokens create` prints one).
    public var token: String
    /// The zone the store's records live in.
    public var zoneName: String
    /// Whether plain `http://` may be used to a host other than this machine (`false` by
    /// default: such a server URL is refused with ``CloudError/Code-swift.struct/insecureConnection``,
    /// since the token would travel unencrypted). Loopback (`localhost`, `127.0.0.0/8`,
    /// `::1`) is always allowed; `https://` always is.
    public var allowsInsecureHTTP: Bool = false
    /// Set when the store syncs through a shared folder instead of a server (then
    /// ``serverURL`` is the folder's file URL and ``token`` is unused); see ``FolderSyncOptions``.
    public var folderSync: FolderSyncOptions?

    /// The zone Nimbus uses unless told otherwise, named as Core Data names its own.
    public static let defaultZoneName = "com.nimbus.coredata.cloudkit.zone"

    /// Creates options.
    /// - Parameters:
    ///   - serverURL: The sync server's base URL.
    ///   - containerIdentifier: The container identifier.
    ///   - databaseScope: The database; `private` by default.
    ///   - token: The device's bearer token.
    ///   - zoneName: The zone; ``defaultZoneName`` by default.
    ///   - allowsInsecureHTTP: Whether plain `http://` to a host other than loopback is
    ///     allowed; `false` by default.
    public init(serverURL: URL, containerIdentifier: String, databaseScope: DatabaseScope = .private,
                token: String, zoneName: String = CloudContainerOptions.defaultZoneName, allowsInsecureHTTP: Bool = false) {
        self.serverURL = serverURL
        self.containerIdentifier = containerIdentifier
        self.databaseScope = databaseScope
        self.token = token
        self.zoneName = zoneName
        self.allowsInsecureHTTP = allowsInsecureHTTP
    }

    private enum CodingKeys: String, CodingKey {
        case serverURL, containerIdentifier, databaseScope, token, zoneName, allowsInsecureHTTP, folderSync
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        serverURL = try container.decode(URL.self, forKey: .serverURL)
        containerIdentifier = try container.decode(String.self, forKey: .containerIdentifier)
        databaseScope = try container.decode(DatabaseScope.self, forKey: .databaseScope)
        token = try container.decode(String.self, forKey: .token)
        zoneName = try container.decode(String.self, forKey: .zoneName)
        // Options saved before the setting existed read as "not allowed".
        allowsInsecureHTTP = try container.decodeIfPresent(Bool.self, forKey: .allowsInsecureHTTP) ?? false
        folderSync = try container.decodeIfPresent(FolderSyncOptions.self, forKey: .folderSync)
    }

    /// Checks that requests to ``serverURL`` may be sent: `https://`, plain `http://` to
    /// loopback, or plain `http://` elsewhere with ``allowsInsecureHTTP``.
    ///
    /// For example:
    /// ```swift
    /// try CloudContainerOptions(serverURL: URL(string: "http://sync.example.com")!, containerIdentifier: "posts", token: t)
    ///     .checkTransportSecurity()   // throws insecureConnection
    /// ```
    /// - Throws: ``CloudError`` with ``CloudError/Code-swift.struct/insecureConnection``, or
    ///   ``CloudError/Code-swift.struct/invalidConfiguration`` for a URL that is neither http nor https.
    public func checkTransportSecurity() throws {
        // A shared folder is no network connection: what reaches it is the folder's (and its
        // file service's) business (see FolderSyncOptions.encryptionKey).
        if folderSync != nil { return }
        try Self.checkTransportSecurity(of: serverURL, allowsInsecureHTTP: allowsInsecureHTTP)
    }

    /// The check of ``checkTransportSecurity()`` for a server URL.
    public static func checkTransportSecurity(of serverURL: URL, allowsInsecureHTTP: Bool) throws {
        switch serverURL.scheme?.lowercased() {
        case "https": return
        case "http":
            if allowsInsecureHTTP || isLoopback(serverURL.host ?? "") { return }
            throw CloudError(.insecureConnection, "\(serverURL.absoluteString) is plain http:// to another machine: the device's token "
                + "and data would cross the network unencrypted. Use https://, or allow plain http explicitly "
                + "(CloudContainerOptions.allowsInsecureHTTP, or --allow-insecure-http)")
        default:
            throw CloudError(.invalidConfiguration, "the server URL \(serverURL.absoluteString) must be http:// or https://")
        }
    }

    /// Whether a host names this machine: `localhost` (and `*.localhost`), `127.0.0.0/8`, `::1`.
    static func isLoopback(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" || name == "0:0:0:0:0:0:0:1" { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { part in UInt8(part) != nil }
    }

    /// The zone's identifier.
    public var zoneID: ZoneID { ZoneID(zoneName: zoneName) }
}
