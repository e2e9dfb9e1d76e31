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

    /// The zone Nimbus uses unless told otherwise, named as Core Data names its own.
    public static let defaultZoneName = "com.nimbus.coredata.cloudkit.zone"

    /// Creates options.
    /// - Parameters:
    ///   - serverURL: The sync server's base URL.
    ///   - containerIdentifier: The container identifier.
    ///   - databaseScope: The database; `private` by default.
    ///   - token: The device's bearer token.
    ///   - zoneName: The zone; ``defaultZoneName`` by default.
    public init(serverURL: URL, containerIdentifier: String, databaseScope: DatabaseScope = .private,
                token: String, zoneName: String = CloudContainerOptions.defaultZoneName) {
        self.serverURL = serverURL
        self.containerIdentifier = containerIdentifier
        self.databaseScope = databaseScope
        self.token = token
        self.zoneName = zoneName
    }

    /// The zone's identifier.
    public var zoneID: ZoneID { ZoneID(zoneName: zoneName) }
}
