import Foundation
import Nimbus

/// `nimbus store migrate <device-folder> --model M`: upgrades a device as an app update
/// would. Every store file of the folder (each account's, the local ones) migrates to the new
/// model, then the folder's `model.json` is replaced, so the next `nimbus device sync` runs on
/// the new model (its sync metadata follows the model when the store opens).
///
/// The folder's model is replaced only when every store migrated; a store that fails stops
/// the upgrade with the stores migrated so far readable by the new model only, so the error
/// names them.
enum DeviceMigration {
    static func run(folder path: String, model modelPath: String, mappings: [MappingModel], dryRun: Bool,
                    report: (String) -> Void) throws -> [String] {
        let folder = try DeviceFolder(path: path)
        let modelURL = URL(fileURLWithPath: modelPath)
        let model = try ManagedObjectModel(contentsOf: modelURL)
        let stores = storeFiles(in: folder.url)
        var migrated: [String] = []
        for store in stores {
            let plan = try StoreCommand.Migrate.plan(storeAt: store, model: modelURL, mappings: mappings)
            if dryRun {
                let previews = try plan.preview(storeAt: store)
                report("\(store.path): \(previews.isEmpty ? "already at the model's current version" : previews.map(\.label).joined(separator: ", "))")
                // The real plan on a copy (decision 0060): the dry run's answer is the real run's.
                do {
                    try plan.rehearseMigration(ofStoreAt: store)
                } catch let error as NimbusError {
                    throw CLIError("the device's store \(store.path) would not migrate (a trial run on a copy failed): \(error.message); nothing was changed")
                }
                continue
            }
            do {
                let stages = try plan.migrateStore(at: store) { _ in }
                report("\(store.path): \(stages.isEmpty ? "already at the model's current version" : "migrated through " + stages.joined(separator: ", "))")
            } catch {
                let done = migrated.isEmpty ? "" : " (already migrated: \(migrated.joined(separator: ", ")))"
                throw CLIError("the device's store \(store.path) did not migrate\(done); the device keeps its old model",
                               status: ExitStatus.report(for: error)?.status ?? .internalError, underlying: error)
            }
            migrated.append(store.path)
        }
        if !dryRun {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try encoder.encode(model).write(to: folder.url.appendingPathComponent("model.json"), options: .atomic)
        }
        return stores.map(\.path)
    }

    /// Every SQLite store file under the folder (accounts' and local stores), in path order.
    static func storeFiles(in folder: URL) -> [URL] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        var files: [URL] = []
        for case let url as URL in walker where url.pathExtension == "sqlite" { files.append(url.standardizedFileURL) }
        return files.sorted { $0.path < $1.path }
    }
}
