import Foundation
import Nimbus
@testable import NimbusCloud
import NimbusTesting

/// Devices that sync through shared folders: one folder for all (a file service that
/// copies instantly), or a folder per device that a ``FolderCopier`` fills.
enum FolderDevices {
    /// A device (the sync model) whose cloud store syncs through `shared`.
    static func device(_ shared: URL, model: ManagedObjectModel, name: String = "device", key: Data? = nil,
                       compactionThreshold: Int = 64, automatic: Bool = false, pollInterval: Double = 2) throws -> Device {
        let folder = try TemporaryDirectory()
        let container = CloudContainer(name: name, managedObjectModel: model)
        container.automaticallySyncs = automatic
        var cloud = PersistentStoreDescription(url: folder.url.appendingPathComponent("Cloud.sqlite"))
        cloud.configuration = "Cloud"
        var options = FolderSyncOptions(folder: shared, encryptionKey: key)
        options.compactionThreshold = compactionThreshold
        options.pollInterval = pollInterval
        cloud.cloudContainerOptions = CloudContainerOptions(folder: shared, containerIdentifier: "app", folderOptions: options)
        var local = PersistentStoreDescription(url: folder.url.appendingPathComponent("Local.sqlite"))
        local.configuration = "Local"
        container.persistentStoreDescriptions = [cloud, local]
        try container.loadPersistentStores()
        return Device.wrapping(container, folder: folder)
    }

    /// `count` devices on one shared folder.
    static func onOneFolder(_ count: Int, key: Data? = nil) throws -> (TemporaryDirectory, [Device]) {
        let shared = try TemporaryDirectory()
        let model = try SyncModel.make()
        return (shared, try (0..<count).map { try device(shared.url, model: model, name: "device\($0)", key: key) })
    }
}

extension Device {
    /// The device's folder transport.
    var folderTransport: FolderTransport {
        container.folderTransports.first!
    }

    /// Post titles and their tags / attachments, for comparing replicas.
    func posts() async throws -> [String: [String: String]] { try await snapshot("Post", key: "title") }
}

/// A file service between per-device folders: copies files from one device's folder to
/// another's, all of them or those a test picks, whole or in part.
struct FolderCopier {
    /// Every file under `root` (relative paths), temporary files included.
    static func files(_ root: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var result: [String] = []
        while let path = walker.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory), !isDirectory.boolValue {
                result.append(path)
            }
        }
        return result.sorted()
    }

    /// Copies the files `pick` accepts that `to` lacks (or holds with other bytes), skipping
    /// temporary files; returns the paths copied.
    @discardableResult
    static func copy(from: URL, to: URL, pick: (String) -> Bool = { _ in true }) throws -> [String] {
        var copied: [String] = []
        for path in files(from) where pick(path) && !(path as NSString).lastPathComponent.hasPrefix(".tmp-") {
            let data = try Data(contentsOf: from.appendingPathComponent(path))
            let target = to.appendingPathComponent(path)
            if (try? Data(contentsOf: target)) == data { continue }
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: target)
            copied.append(path)
        }
        return copied
    }

    /// Writes the first `fraction` of a file's bytes to `to` (a copy caught mid-way).
    static func copyPart(_ path: String, from: URL, to: URL, fraction: Double) throws {
        let data = try Data(contentsOf: from.appendingPathComponent(path))
        let target = to.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.prefix(Int(Double(data.count) * fraction)).write(to: target)
    }
}
