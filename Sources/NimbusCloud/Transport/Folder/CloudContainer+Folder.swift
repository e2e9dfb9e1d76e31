import Foundation

extension CloudContainer {
    /// Compacts every store that syncs through a shared folder now: writes its baseline and
    /// removes its logs every known peer has imported (see ``FolderTransport/compact()``;
    /// syncing does it by itself once logs pile up).
    ///
    /// For example:
    /// ```swift
    /// let removed = try await container.compactSharedFolders()
    /// ```
    /// - Returns: How many log files were removed, over every folder store.
    /// - Throws: ``CloudError`` when a folder or an index can't be read or written.
    @discardableResult
    public func compactSharedFolders() async throws -> Int {
        var removed = 0
        for engine in engines {
            if let transport = engine.mirror.transport as? FolderTransport { removed += try await transport.compact() }
        }
        return removed
    }

    /// What the last look at each folder store's shared folder found, by store identifier.
    public var sharedFolderReports: [String: FolderImportReport] {
        var reports: [String: FolderImportReport] = [:]
        for engine in engines {
            if let transport = engine.mirror.transport as? FolderTransport { reports[engine.mirror.store.identifier] = transport.lastImport }
        }
        return reports
    }
}

extension CloudContainer {
    /// The transports of the stores that sync through a shared folder.
    var folderTransports: [FolderTransport] { engines.compactMap { $0.mirror.transport as? FolderTransport } }
}
