import Foundation
import Nimbus
import NimbusCloud

extension SyncBenchmark {
    /// `nimbus bench-sync --folder`: the upload and download rows through a shared folder on
    /// the local disk (no server): a save of `objects` on A, its export as logs, then a new
    /// device B importing them, and B again from a baseline after A compacts.
    static func runFolder(objects: Int, progress: @escaping @Sendable (String) -> Void) async throws -> [Row] {
        var rows: [Row] = []
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-bench-folder-\(UUID().uuidString)")
        let shared = root.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }

        let a = try folderDevice("a", root: root, shared: shared)
        progress("saving \(objects) objects on device A…")
        let saveSeconds = try insert(objects, into: a, prefix: "post")
        rows.append(Row(scenario: "folder: save of \(objects) new objects on A (mirroring on)", result: "\(String(format: "%.2f", saveSeconds)) s"))
        let uploadStart = ContinuousClock.now
        let uploaded = try await a.syncNow()
        let upload = (ContinuousClock.now - uploadStart).seconds
        let logs = try FileManager.default.subpathsOfDirectory(atPath: shared.path).filter { $0.hasSuffix(".nlog") }.count
        rows.append(Row(scenario: "folder: export of \(objects) objects as logs (`syncNow` on A)",
                        result: "\(String(format: "%.2f", upload)) s, **\((Double(objects) / upload).formatted0) records/s** (exported \(uploaded.exported), \(logs) log files)"))
        progress("importing into device B…")
        let b = try folderDevice("b", root: root, shared: shared)
        let downloadStart = ContinuousClock.now
        let downloaded = try await b.syncNow()
        let download = (ContinuousClock.now - downloadStart).seconds
        rows.append(Row(scenario: "folder: import of \(objects) objects from logs into an empty device (`syncNow` on B)",
                        result: "\(String(format: "%.2f", download)) s, **\((Double(objects) / download).formatted0) records/s** (imported \(downloaded.imported))"))
        // A compacts (B has read everything), and a new device starts from the baseline.
        let compactStart = ContinuousClock.now
        let removed = try await a.compactSharedFolders()
        rows.append(Row(scenario: "folder: compaction on A (baseline of \(objects) records written, logs removed)",
                        result: "\(String(format: "%.2f", (ContinuousClock.now - compactStart).seconds)) s, \(removed) log files removed"))
        progress("importing into device C from the baseline…")
        let c = try folderDevice("c", root: root, shared: shared)
        let baselineStart = ContinuousClock.now
        let fromBaseline = try await c.syncNow()
        let baseline = (ContinuousClock.now - baselineStart).seconds
        rows.append(Row(scenario: "folder: new device from the baseline (`syncNow` on C)",
                        result: "\(String(format: "%.2f", baseline)) s, **\((Double(objects) / baseline).formatted0) records/s** (imported \(fromBaseline.imported))"))
        return rows
    }

    static func folderDevice(_ name: String, root: URL, shared: URL) throws -> CloudContainer {
        let folder = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let cloud = CloudContainer(name: name, managedObjectModel: try model())
        cloud.automaticallySyncs = false
        var description = PersistentStoreDescription(url: folder.appendingPathComponent("Store.sqlite"))
        description.cloudContainerOptions = CloudContainerOptions(folder: shared, containerIdentifier: "bulk")
        cloud.persistentStoreDescriptions = [description]
        try cloud.loadPersistentStores()
        return cloud
    }
}
