import Foundation

/// Where things live in a shared folder:
///
/// ```
/// <folder>/nimbus-folder.json            the marker: format and container
/// <folder>/peers/<peer>/logs/<seq>.nlog  a device's transaction logs (immutable)
/// <folder>/peers/<peer>/receipts.json    what that device has imported, per peer
/// <folder>/peers/<peer>/baseline.nbase   that device's latest baseline (a snapshot)
/// <folder>/assets/<sha256>               assets, content-addressed
/// ```
/// Each device writes only under its own peer folder (and new asset files), so a file
/// service never has two writers for one file.
struct FolderLayout: Sendable {
    let root: URL

    var marker: URL { root.appendingPathComponent("nimbus-folder.json") }
    var peers: URL { root.appendingPathComponent("peers", isDirectory: true) }
    var assets: URL { root.appendingPathComponent("assets", isDirectory: true) }

    func peer(_ id: String) -> URL { peers.appendingPathComponent(id, isDirectory: true) }
    func logs(_ peer: String) -> URL { self.peer(peer).appendingPathComponent("logs", isDirectory: true) }
    func log(_ peer: String, _ seq: Int64) -> URL { logs(peer).appendingPathComponent(LogName.fileName(seq)) }
    func receipts(_ peer: String) -> URL { self.peer(peer).appendingPathComponent("receipts.json") }
    func baseline(_ peer: String) -> URL { self.peer(peer).appendingPathComponent("baseline.nbase") }
    func asset(_ checksum: String) -> URL { assets.appendingPathComponent(checksum) }

    /// Whether the folder is there (a mounted volume may be briefly missing).
    var exists: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// The peers that have a folder (names that are not peer ids are skipped).
    func peerIDs() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: peers.path)) ?? [])
            .filter { !$0.hasPrefix(".") && !$0.contains(" ") && !$0.contains("conflict") }
            .sorted()
    }

    /// A peer's log files by name (originals and conflicted copies), in sequence order.
    func logFiles(_ peer: String) -> [(name: LogName, url: URL)] {
        let directory = logs(peer)
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [])
            .compactMap { file -> (name: LogName, url: URL)? in LogName(file).map { (name: $0, url: directory.appendingPathComponent(file)) } }
            .sorted { $0.name < $1.name || ($0.name == $1.name && $0.url.lastPathComponent < $1.url.lastPathComponent) }
    }

    /// A file's bytes, or `nil` when it is gone (removed by its writer's compaction meanwhile).
    static func read(_ url: URL) -> Data? {
        try? Data(contentsOf: url)
    }
}

/// The marker at the folder's root: one folder holds one container's data.
struct FolderMarker: Codable, Sendable, Equatable {
    var format = 1
    var container: String
}

/// What a device has imported, per peer (the highest number up to which it has every log):
/// other devices compact their logs by it.
struct FolderReceipt: Codable, Sendable, Equatable {
    var peer: String
    var consumed: [String: Int64]
    var time: Int64
}
