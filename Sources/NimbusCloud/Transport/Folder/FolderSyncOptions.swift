import Foundation

/// How a store syncs through a shared folder instead of a server: the folder a file service
/// (Syncthing, Dropbox, a NAS, a USB stick) copies between devices, where this device keeps
/// its own index, and an optional key that encrypts the log files.
///
/// Set it through ``CloudContainerOptions/init(folder:containerIdentifier:zoneName:folderOptions:)``;
/// the container then talks to a ``FolderTransport`` instead of ``HTTPTransport``.
///
/// For example:
/// ```swift
/// var options = FolderSyncOptions(folder: URL(fileURLWithPath: "/mnt/dropbox/Posts"))
/// options.encryptionKey = sharedKey   // 32 bytes every device knows, or nil
/// cloud.cloudContainerOptions = CloudContainerOptions(folder: options.folder, containerIdentifier: "posts",
///                                                     folderOptions: options)
/// ```
public struct FolderSyncOptions: Sendable, Hashable, Codable {
    /// The shared folder (every device of the user names its own copy of it).
    public var folder: URL
    /// The device's index of what it imported from the folder (a SQLite file that belongs to
    /// this device only, never inside the shared folder). `nil`: beside the store file, as
    /// `<store>.folder-index.sqlite`.
    public var indexURL: URL?
    /// A 32-byte key for AES-GCM: when set, log files, baselines and assets are written
    /// encrypted and only files that decrypt with it are imported. `nil` (the default): plain
    /// files anyone who can read the folder can read.
    public var encryptionKey: Data?
    /// How often the transport looks at the folder for logs of other devices while syncing by
    /// itself, in seconds (a file service gives no push).
    public var pollInterval: Double = 2
    /// How many of its own logs a device keeps before it writes a baseline and removes the
    /// logs every known peer has consumed (see ``FolderTransport/compact()``).
    public var compactionThreshold: Int = 64

    /// Creates options for a shared folder.
    /// - Parameters:
    ///   - folder: The shared folder.
    ///   - indexURL: Where the device's index lives; beside the store when `nil`.
    ///   - encryptionKey: A 32-byte AES-GCM key shared by the devices, or `nil`.
    public init(folder: URL, indexURL: URL? = nil, encryptionKey: Data? = nil) {
        self.folder = folder
        self.indexURL = indexURL
        self.encryptionKey = encryptionKey
    }
}

extension CloudContainerOptions {
    /// Options that sync a store through a shared folder instead of a server.
    ///
    /// For example:
    /// ```swift
    /// cloud.cloudContainerOptions = CloudContainerOptions(folder: URL(fileURLWithPath: "/srv/sync/posts"),
    ///                                                     containerIdentifier: "posts")
    /// ```
    /// - Parameters:
    ///   - folder: The shared folder.
    ///   - containerIdentifier: The container identifier (written into the folder's marker:
    ///     one folder holds one container).
    ///   - zoneName: The zone; ``defaultZoneName`` by default.
    ///   - folderOptions: Further folder options (index location, encryption key); the
    ///     defaults when `nil`.
    public init(folder: URL, containerIdentifier: String, zoneName: String = CloudContainerOptions.defaultZoneName,
                folderOptions: FolderSyncOptions? = nil) {
        self.init(serverURL: folder, containerIdentifier: containerIdentifier, token: "", zoneName: zoneName)
        var options = folderOptions ?? FolderSyncOptions(folder: folder)
        options.folder = folder
        folderSync = options
    }
}

extension CloudContainerOptions {
    /// The options with the folder index placed beside the store file when no place was
    /// given (`<store>.folder-index.sqlite`); other options unchanged.
    func locatingFolderIndex(beside storeURL: URL?) -> CloudContainerOptions {
        guard var folder = folderSync, folder.indexURL == nil, let storeURL else { return self }
        folder.indexURL = URL(fileURLWithPath: storeURL.path + ".folder-index.sqlite")
        var options = self
        options.folderSync = folder
        return options
    }
}
