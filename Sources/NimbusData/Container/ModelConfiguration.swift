public import Foundation

/// Where and how a container stores its models: SwiftData's `ModelConfiguration`.
///
/// ```swift
/// let onDisk = ModelConfiguration(url: folder.appending(path: "Trips.store"))
/// let inMemory = ModelConfiguration(isStoredInMemoryOnly: true)
/// let synced = ModelConfiguration(url: storeURL, cloudKitDatabase: .private("iCloud.com.example.trips"))
/// ```
public struct ModelConfiguration: Identifiable, Hashable, @unchecked Sendable {
    /// The cloud database a configuration mirrors to, through a Nimbus sync server
    /// (decision 0103).
    public struct CloudKitDatabase: Hashable, Sendable {
        enum Kind: Hashable, Sendable {
            case automatic
            case none
            case `private`(String)
        }

        let kind: Kind
        /// Mirrors when a server is configured (`NIMBUS_SERVER_URL`, or the container's
        /// server initializer), to the container identifier `NIMBUS_CONTAINER_ID` or the
        /// process's name; stays local otherwise.
        public static var automatic: CloudKitDatabase { CloudKitDatabase(kind: .automatic) }
        /// Never mirrors.
        public static var none: CloudKitDatabase { CloudKitDatabase(kind: .none) }
        /// Mirrors to the private database of a container identifier; opening fails when
        /// no server is configured.
        public static func `private`(_ containerIdentifier: String) -> CloudKitDatabase {
            CloudKitDatabase(kind: .private(containerIdentifier))
        }
    }

    /// An app group container (no meaning on Linux; kept so that code compiles).
    public struct GroupContainer: Hashable, Sendable {
        let identifier: String?
        public static var automatic: GroupContainer { GroupContainer(identifier: nil) }
        public static var none: GroupContainer { GroupContainer(identifier: nil) }
        public static func identifier(_ identifier: String) -> GroupContainer { GroupContainer(identifier: identifier) }
    }

    /// The configuration's name (`default` unless given).
    public let name: String
    /// The types this configuration stores; all of the container's when nil.
    public let schema: Schema?
    /// The store file (`<data directory>/<name>.store` unless given).
    public let url: URL
    /// Whether the store lives in memory only.
    public let isStoredInMemoryOnly: Bool
    /// Whether contexts may save.
    public let allowsSave: Bool
    /// The cloud database to mirror to.
    public let cloudKitDatabase: CloudKitDatabase

    public var id: String { name + "|" + url.path }

    /// A configuration in the default location (or in memory).
    public init(_ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true,
                groupContainer: GroupContainer = .automatic, cloudKitDatabase: CloudKitDatabase = .automatic) {
        let name = name ?? "default"
        self.name = name
        self.schema = schema
        self.url = isStoredInMemoryOnly ? URL(fileURLWithPath: "/dev/null") : Self.defaultDirectory.appendingPathComponent("\(name).store")
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.cloudKitDatabase = isStoredInMemoryOnly ? .none : cloudKitDatabase
    }

    /// A configuration whose store is a given file.
    public init(_ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true,
                cloudKitDatabase: CloudKitDatabase = .automatic) {
        self.name = name ?? "default"
        self.schema = schema
        self.url = url
        self.isStoredInMemoryOnly = false
        self.allowsSave = allowsSave
        self.cloudKitDatabase = cloudKitDatabase
    }

    /// A configuration in memory, or in the default location.
    public init(isStoredInMemoryOnly: Bool) {
        self.init(nil, isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    /// Where stores go by default: `$XDG_DATA_HOME/nimbus`, else `~/.local/share/nimbus`.
    static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("nimbus", isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share/nimbus", isDirectory: true)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.isStoredInMemoryOnly == rhs.isStoredInMemoryOnly
            && lhs.allowsSave == rhs.allowsSave && lhs.cloudKitDatabase == rhs.cloudKitDatabase && lhs.schema == rhs.schema
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(url)
    }
}
