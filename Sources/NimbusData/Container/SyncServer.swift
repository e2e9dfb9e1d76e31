public import Foundation
public import NimbusCloud

/// The Nimbus sync server a container's mirrored configurations use: given once, through
/// ``ModelContainer/init(for:migrationPlan:configurations:server:)`` or the environment
/// (`NIMBUS_SERVER_URL`, `NIMBUS_TOKEN`, `NIMBUS_CONTAINER_ID`), decision 0103.
///
/// ```swift
/// let server = SyncServer(url: URL(string: "https://sync.example.com")!, token: deviceToken)
/// ```
public struct SyncServer: Sendable, Hashable {
    /// The server's base URL.
    public var url: URL
    /// The device's bearer token.
    public var token: String
    /// The container identifier for configurations with `cloudKitDatabase: .automatic`.
    public var containerIdentifier: String?
    /// Whether plain `http://` to a host other than loopback is allowed.
    public var allowsInsecureHTTP: Bool

    /// Creates a server description.
    public init(url: URL, token: String, containerIdentifier: String? = nil, allowsInsecureHTTP: Bool = false) {
        self.url = url
        self.token = token
        self.containerIdentifier = containerIdentifier
        self.allowsInsecureHTTP = allowsInsecureHTTP
    }

    /// The server the environment names (`NIMBUS_SERVER_URL`, `NIMBUS_TOKEN`,
    /// `NIMBUS_CONTAINER_ID`), or nil without `NIMBUS_SERVER_URL`.
    public static var fromEnvironment: SyncServer? {
        let environment = ProcessInfo.processInfo.environment
        guard let text = environment["NIMBUS_SERVER_URL"], !text.isEmpty, let url = URL(string: text) else { return nil }
        return SyncServer(url: url, token: environment["NIMBUS_TOKEN"] ?? "", containerIdentifier: environment["NIMBUS_CONTAINER_ID"])
    }
}

extension ModelContainer {
    /// The mirroring options of a configuration, or nil when it stays local.
    static func cloudOptions(for configuration: ModelConfiguration, server: SyncServer?) throws -> CloudContainerOptions? {
        switch configuration.cloudKitDatabase.kind {
        case .none:
            return nil
        case .automatic:
            guard let server else { return nil }
            let identifier = server.containerIdentifier ?? ProcessInfo.processInfo.processName
            return CloudContainerOptions(serverURL: server.url, containerIdentifier: identifier, token: server.token,
                                         allowsInsecureHTTP: server.allowsInsecureHTTP)
        case let .private(identifier):
            guard let server else {
                throw SwiftDataError(.loadIssueModelContainer, """
                    the configuration \(configuration.name) mirrors to .private("\(identifier)") but no sync server is set: \
                    set NIMBUS_SERVER_URL (and NIMBUS_TOKEN), or open the container with ModelContainer(for:configurations:server:)
                    """)
            }
            return CloudContainerOptions(serverURL: server.url, containerIdentifier: identifier, token: server.token,
                                         allowsInsecureHTTP: server.allowsInsecureHTTP)
        }
    }
}
