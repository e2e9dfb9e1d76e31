import Foundation
import GRDB

// Store file operations. Copying a live store's `.sqlite` file by hand is unsafe: in WAL
// mode recent transactions live in the `-wal` file until a checkpoint, so the copied main
// file lacks them (or is caught mid-checkpoint and is corrupt), and deleting the main file
// under open connections leaves them writing to an unlinked file. These operations go
// through SQLite instead: the backup API copies a consistent snapshot of the database
// (WAL content included) page by page while other connections keep working, and a store is
// destroyed by emptying it through SQLite before its files are removed.

extension PersistentStoreCoordinator {
    /// Moves a store to a new file: copies it there with SQLite's backup API, then swaps the
    /// coordinator to the new file. The old file is left as it was; object IDs stay valid
    /// (the store keeps its identifier).
    ///
    /// ```swift
    /// let moved = try coordinator.migratePersistentStore(store, to: backupURL)
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/storeNotFound`` when the store is not in
    ///   this coordinator, ``NimbusError/Code-swift.struct/invalidArgument`` when the
    ///   destination exists; the coordinator is unchanged then.
    @discardableResult
    public func migratePersistentStore(_ store: PersistentStore, to url: URL) throws -> PersistentStore {
        guard persistentStores.contains(where: { $0 === store }) else {
            throw NimbusError(.storeNotFound, "the store \(store.identifier) is not in this coordinator")
        }
        guard !FileManager.default.fileExists(atPath: url.path) else {
            throw NimbusError(.invalidArgument, "\(url.path) already exists; migrate a store to a new file")
        }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        do {
            let destination = try StoreConnection.queue(path: url.path)
            try store.database.gate.pass(store.identifier) { try store.database.writer.backup(to: destination) }
            try destination.close()
        } catch let error as DatabaseError {
            Self.removeFiles(of: url)
            throw NimbusError.from(error, path: url.path)
        }
        var description = store.storeDescription
        description.url = url
        postStoresWillChange([store])
        try removePersistentStore(store, posting: false)
        do {
            let moved = try addPersistentStore(with: description, posting: false)
            postStoresDidChange(added: [moved], removed: [store])
            return moved
        } catch {
            // Put the old store back: the coordinator stays as it was.
            _ = try? addPersistentStore(with: store.storeDescription, posting: false)
            Self.removeFiles(of: url)
            throw error
        }
    }

    /// Replaces the store at `destinationURL` with a copy of the store at `sourceURL`,
    /// through SQLite's backup API (safe while other connections have the destination open:
    /// they see the new content). When this coordinator has the destination added, it is
    /// re-added afterwards with the new content.
    ///
    /// ```swift
    /// try coordinator.replacePersistentStore(at: liveURL, withPersistentStoreFrom: downloadedURL)
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/storeNotFound`` when there is no store at
    ///   `sourceURL`; ``NimbusError/Code-swift.struct/notADatabase`` and the other errors of
    ///   opening it; the destination is unchanged then.
    public func replacePersistentStore(at destinationURL: URL, withPersistentStoreFrom sourceURL: URL) throws {
        guard try StoreInspector.inspect(path: sourceURL.path) != nil else {
            throw NimbusError(.storeNotFound, "no store at \(sourceURL.path) to replace \(destinationURL.path) with")
        }
        let added = persistentStore(for: destinationURL)
        if let added { postStoresWillChange([added]); try removePersistentStore(added, posting: false) }
        do {
            let source = try StoreConnection.queue(path: sourceURL.path, readOnly: true)
            try FileManager.default.createDirectory(at: destinationURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            let destination = try StoreConnection.queue(path: destinationURL.path)
            try source.backup(to: destination)
            try destination.close()
            try source.close()
        } catch let error as DatabaseError {
            if let added { _ = try? addPersistentStore(with: added.storeDescription, posting: false) }
            throw NimbusError.from(error, path: destinationURL.path)
        }
        if let added {
            let replaced = try addPersistentStore(with: added.storeDescription, posting: false)
            postStoresDidChange(added: [replaced], removed: [added])
        }
    }

    /// Destroys the store at a URL: removes it from this coordinator if added, empties the
    /// database through SQLite (so connections elsewhere see an empty database, never a
    /// deleted file), then removes the file, its `-wal`, `-shm` and `-journal` files and its
    /// external-data folder. A URL with no file is not an error.
    ///
    /// ```swift
    /// try coordinator.destroyPersistentStore(at: storeURL)
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/notADatabase`` when the file is not a SQLite
    ///   database (it is left alone).
    public func destroyPersistentStore(at url: URL) throws {
        if let added = persistentStore(for: url) {
            postStoresWillChange([added])
            try removePersistentStore(added, posting: false)
            postStoresDidChange(added: [], removed: [added])
        }
        try Self.destroyStoreFiles(at: url)
    }

    /// Empties and removes a store's files (see ``destroyPersistentStore(at:)``).
    package static func destroyStoreFiles(at url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        guard try StoreInspector.inspect(path: url.path) != nil else {
            throw NimbusError(.notADatabase, "\(url.path) is not a store; it was left alone")
        }
        do {
            let empty = try DatabaseQueue()
            let database = try StoreConnection.queue(path: url.path)
            try empty.backup(to: database)
            try database.close()
        } catch let error as DatabaseError {
            throw NimbusError.from(error, path: url.path)
        }
        removeFiles(of: url)
    }

    static func removeFiles(of url: URL) {
        let manager = FileManager.default
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try? manager.removeItem(atPath: url.path + suffix)
        }
        let support = url.deletingLastPathComponent()
            .appendingPathComponent("." + url.deletingPathExtension().lastPathComponent + "_SUPPORT")
        try? manager.removeItem(at: support)
    }

    // MARK: Metadata

    /// A store's metadata: `NSStoreType`, `NSStoreUUID`, the model's version hashes, and the
    /// keys set with ``setMetadata(_:for:)``.
    public func metadata(for store: PersistentStore) throws -> [String: Any] {
        try store.database.readMetadata()
    }

    /// Sets a store's metadata (written at once, in its own transaction). The store's own
    /// keys (`NSStore…`, `NSPersistence…`, `Nimbus…`) are kept whatever the dictionary says;
    /// other keys are replaced by the dictionary's. Values must be property-list values.
    ///
    /// ```swift
    /// var metadata = try coordinator.metadata(for: store)
    /// metadata["lastImport"] = Date()
    /// try coordinator.setMetadata(metadata, for: store)
    /// ```
    ///
    /// - Throws: ``NimbusError/Code-swift.struct/readOnlyStore``;
    ///   ``NimbusError/Code-swift.struct/invalidArgument`` for a value that is not a
    ///   property-list value (nothing is written).
    public func setMetadata(_ metadata: [String: Any], for store: PersistentStore) throws {
        guard !store.isReadOnly else {
            throw NimbusError(.readOnlyStore, "cannot set the metadata of \(store.url?.path ?? store.identifier): the store is read-only")
        }
        guard PropertyListSerialization.propertyList(metadata, isValidFor: .binary) else {
            throw NimbusError(.invalidArgument, "metadata values must be property-list values (strings, numbers, dates, data, arrays, dictionaries)")
        }
        try store.database.write { db in
            guard var current = try StoreMetadata.read(db) else {
                throw NimbusError(.corruptStore, "the store \(store.identifier) has no metadata row")
            }
            func isSystem(_ key: String) -> Bool { key.hasPrefix("NSStore") || key.hasPrefix("NSPersistence") || key.hasPrefix("Nimbus") }
            var merged = current.dictionary.filter { isSystem($0.key) }
            for (key, value) in metadata where !isSystem(key) { merged[key] = value }
            current.dictionary = merged
            try current.write(db)
        }
    }
}
