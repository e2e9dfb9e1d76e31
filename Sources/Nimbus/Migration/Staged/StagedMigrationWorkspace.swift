import Foundation
import GRDB

/// The working copy of a staged migration, beside the store: `.<name>.migration/<name>`
/// (with its own support folder), and how it replaces the store.
struct StagedMigrationWorkspace {
    let store: URL
    let folder: URL
    let copy: URL

    init(store: URL) {
        self.init(store: store, folder: store.deletingLastPathComponent().appendingPathComponent(".\(store.lastPathComponent).migration", isDirectory: true))
    }

    /// A working copy in a folder of the caller's (a rehearsal's scratch folder).
    init(store: URL, folder: URL) {
        self.store = store
        self.folder = folder
        copy = folder.appendingPathComponent(store.lastPathComponent)
    }

    /// Removes what an interrupted run left (the store itself is never part of it).
    func discardLeftovers() throws {
        guard FileManager.default.fileExists(atPath: folder.path) else { return }
        do { try FileManager.default.removeItem(at: folder) } catch {
            throw NimbusError(.io, "cannot remove the leftover migration folder \(folder.path): \(error.localizedDescription)")
        }
    }

    /// Removes the working copy, whatever happened.
    func discard() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A consistent copy of the store (SQLite's backup, so a WAL's contents come along)
    /// and of its external data.
    func copyStore() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        do {
            let source = try StoreConnection.queue(path: store.path)
            defer { try? source.close() }
            let destination = try StoreConnection.queue(path: copy.path)
            defer { try? destination.close() }
            try source.backup(to: destination)
        } catch let error as DatabaseError {
            throw NimbusError.from(error, path: store.path)
        }
        let external = ExternalStorage.folder(for: store)
        if FileManager.default.fileExists(atPath: external.path) {
            try FileManager.default.copyItem(at: external, to: ExternalStorage.folder(for: copy))
        }
    }

    /// Opens the copy at a model (no migration) and runs a handler in a context.
    func withContext(model: ManagedObjectModel, _ handler: MigrationStage.Handler) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var description = PersistentStoreDescription(url: copy)
        description.shouldMigrateStoreAutomatically = false
        description.persistentHistoryTracking = try historyTracking()
        let added = try coordinator.addPersistentStore(with: description)
        defer { try? coordinator.removePersistentStore(added) }
        let context = ManagedObjectContext(concurrencyType: .privateQueue, coordinator: coordinator)
        try context.performAndWait { try handler(context) }
    }

    private func historyTracking() throws -> Bool {
        try PersistentStoreCoordinator.metadataForPersistentStore(at: copy)["NSPersistentHistoryTrackingKey"] as? Bool == true
    }

    /// An inferred migration of the copy, in place.
    func runLightweight(to model: ManagedObjectModel) throws {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        var description = PersistentStoreDescription(url: copy)
        description.persistentHistoryTracking = try historyTracking()
        let added = try coordinator.addPersistentStore(with: description)
        try coordinator.removePersistentStore(added)
    }

    /// A mapping-model migration of the copy into a new file, which then becomes the copy.
    func runMapping(_ mapping: MappingModel, from source: ManagedObjectModel, to destination: ManagedObjectModel,
                    progress: @escaping @Sendable (Double, String) -> Void) throws {
        let next = folder.appendingPathComponent("next", isDirectory: true).appendingPathComponent(store.lastPathComponent)
        StoreFiles.remove(next)
        try FileManager.default.createDirectory(at: next.deletingLastPathComponent(), withIntermediateDirectories: true)
        let manager = MigrationManager(sourceModel: source, destinationModel: destination)
        manager.progress = progress
        try manager.migrateStore(from: copy, to: next, mapping: mapping)
        StoreFiles.remove(copy)
        try FileManager.default.moveItem(at: next, to: copy)
        let nextExternal = ExternalStorage.folder(for: next)
        if FileManager.default.fileExists(atPath: nextExternal.path) {
            try FileManager.default.moveItem(at: nextExternal, to: ExternalStorage.folder(for: copy))
        }
        try? FileManager.default.removeItem(at: next.deletingLastPathComponent())
    }

    /// Replaces the store with the copy. External files go first (adding files the old
    /// store does not name harms nothing); the rename of the database file is the commit;
    /// files only the old store named are removed after it.
    func swap() throws {
        // Fold the copy's WAL into its file, so the rename moves everything.
        do {
            let queue = try StoreConnection.queue(path: copy.path)
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try queue.close()
        } catch let error as DatabaseError {
            throw NimbusError.from(error, path: copy.path)
        }
        for companion in StoreFiles.companions(of: copy) where FileManager.default.fileExists(atPath: companion.path) {
            let size = (try? FileManager.default.attributesOfItem(atPath: companion.path)[.size] as? NSNumber)?.intValue ?? 0
            if size > 0, companion.path.hasSuffix("-wal") || companion.path.hasSuffix("-journal") {
                throw NimbusError(.migrationFailed, "the migrated copy \(copy.path) still has a journal; the store was not changed")
            }
            try? FileManager.default.removeItem(at: companion)
        }
        let newExternal = ExternalStorage.dataFolder(for: copy)
        let oldExternal = ExternalStorage.dataFolder(for: store)
        var kept: Set<String> = []
        if FileManager.default.fileExists(atPath: newExternal.path) {
            try FileManager.default.createDirectory(at: oldExternal, withIntermediateDirectories: true)
            for name in try FileManager.default.contentsOfDirectory(atPath: newExternal.path) {
                kept.insert(name)
                let target = oldExternal.appendingPathComponent(name)
                if !FileManager.default.fileExists(atPath: target.path) {
                    try FileManager.default.copyItem(at: newExternal.appendingPathComponent(name), to: target)
                }
            }
        }
        // The store is closed: its WAL was folded in when its last connection closed. A WAL
        // with frames means another connection still has it open: replacing the file under
        // it would lose that connection's work, so refuse.
        for companion in StoreFiles.companions(of: store) where FileManager.default.fileExists(atPath: companion.path) {
            let size = (try? FileManager.default.attributesOfItem(atPath: companion.path)[.size] as? NSNumber)?.intValue ?? 0
            if size > 0, !companion.path.hasSuffix("-shm") {
                throw NimbusError(.migrationFailed, "the store at \(store.path) is open elsewhere (its \(companion.lastPathComponent) holds changes); close it and migrate again; the store was not changed")
            }
            try? FileManager.default.removeItem(at: companion)
        }
        if rename(copy.path, store.path) != 0 {
            throw NimbusError(.io, "cannot move the migrated store into place at \(store.path) (errno \(errno)); the store was not changed")
        }
        // Make the rename durable before removing files only the old store named: after a
        // power loss that undid it, the old store would miss them.
        let directory = open(store.deletingLastPathComponent().path, O_RDONLY)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
        if FileManager.default.fileExists(atPath: oldExternal.path) {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: oldExternal.path)) ?? [] where !kept.contains(name) {
                try? FileManager.default.removeItem(at: oldExternal.appendingPathComponent(name))
            }
        }
    }
}
