import Foundation
import GRDB

/// Looks at an existing file read-only before a store opens it for writing, so that a
/// file that is not a store, a corrupt one, or a store of another model is never changed.
struct StoreInspector {
    var identifier: String
    var metadata: StoreMetadata
    var modelCache: Data?

    /// Returns nil when there is no store to open (no file, or an empty file).
    static func inspect(path: String) throws -> StoreInspector? {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let attributes else { return nil }
        if (attributes[.type] as? FileAttributeType) == .typeDirectory {
            throw NimbusError(.notADatabase, "\(path) is a directory, not a SQLite database")
        }
        if (attributes[.size] as? NSNumber)?.intValue ?? 0 == 0 { return nil }
        do {
            // A file no connection has open is read without creating its -wal and -shm.
            let target = UntouchedOpening.isWAL(path) ? try UntouchedOpening.target(for: path) : UntouchedOpening.Target(path: path)
            defer { if let folder = target.copyFolder { try? FileManager.default.removeItem(at: folder) } }
            let queue = try StoreConnection.queue(path: target.path, readOnly: true)
            defer { try? queue.close() }
            return try queue.read { db in
                _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
                guard let metadata = try StoreMetadata.read(db) else {
                    let tables = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'table'") ?? 0
                    if tables == 0 { return nil }
                    throw NimbusError(.corruptStore, "\(path) is a SQLite database but not a Nimbus or Core Data store (no Z_METADATA)")
                }
                let cache = try db.tableExists("Z_MODELCACHE") ? try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE") : nil
                return StoreInspector(identifier: metadata.identifier, metadata: metadata, modelCache: cache)
            }
        } catch let error as DatabaseError {
            throw NimbusError.from(error, path: path)
        }
    }

    /// Throws ``NimbusError/Code-swift.struct/modelMismatch`` naming the entities that differ.
    func check(compatibleWith model: ManagedObjectModel, configuration: String?, path: String) throws {
        let stored = metadata.entityHashes
        let entities = model.entities(forConfiguration: configuration)
        var differences: [String] = []
        for entity in entities {
            if let hash = stored[entity.name] {
                if hash != entity.versionHash { differences.append("\(entity.name) changed") }
            } else {
                differences.append("\(entity.name) is not in the store")
            }
        }
        let names = Set(entities.map(\.name))
        for name in stored.keys.sorted() where !names.contains(name) { differences.append("\(name) is in the store but not in the model") }
        guard differences.isEmpty else {
            throw NimbusError(.modelMismatch, "the store at \(path) was written with a different model: \(differences.joined(separator: ", "))")
        }
    }

    /// The model kept in the store's `Z_MODELCACHE`.
    func storedModel(path: String) throws -> ManagedObjectModel {
        if metadata.isWrittenByCoreData {
            throw NimbusError(.modelMismatch, "the store at \(path) was written by Apple's Core Data (framework version \(metadata.frameworkVersion ?? "unknown")) and keeps its model in Apple's encoding; open it with the app's model (nimbus store commands: --model)")
        }
        guard let modelCache else {
            throw NimbusError(.modelMismatch, "the store at \(path) keeps no model (Z_MODELCACHE); give the model")
        }
        do {
            return try JSONDecoder().decode(ManagedObjectModel.self, from: modelCache)
        } catch let error as NimbusError {
            throw error
        } catch {
            throw NimbusError(.modelMismatch, "the model kept in \(path) cannot be read (it may be Apple's encoding); give the model", underlying: error)
        }
    }
}

extension ManagedObjectModel {
    /// The model a store keeps in its file (`Z_MODELCACHE`), to open a store without the
    /// app's model, as `nimbus store` does.
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/storeNotFound`` when there is no store,
    ///   ``NimbusError/Code-swift.struct/notADatabase``, ``NimbusError/Code-swift.struct/corruptStore``
    ///   or ``NimbusError/Code-swift.struct/modelMismatch`` when the model cannot be read;
    ///   ``NimbusError/Code-swift.struct/invalidModel`` when its names could not be SQL
    ///   identifiers or URI parts (a crafted file), before any of them reaches SQL.
    public static func storedModel(at url: URL) throws -> ManagedObjectModel {
        guard let inspector = try StoreInspector.inspect(path: url.path) else {
            throw NimbusError(.storeNotFound, "no store at \(url.path)")
        }
        return try inspector.storedModel(path: url.path)
    }
}
