import Foundation
import GRDB
import NimbusWire

extension FolderTransport {
    /// Writes this device's baseline (its whole index) and removes its own logs that the
    /// baseline covers and every known peer has imported (by their receipts).
    ///
    /// A peer counts as known once it has a folder under `peers/`; one without a receipt yet
    /// keeps every log. A device that joins later starts from the baselines.
    ///
    /// For example:
    /// ```swift
    /// let removed = try await transport.compact()
    /// ```
    /// - Returns: How many log files were removed.
    /// - Throws: ``CloudError`` when the folder or the index can't be read or written.
    @discardableResult
    public func compact() async throws -> Int {
        try requireFolder()
        let index = try index()
        let key = try key()
        let layout = self.layout
        let (baseline, consumed) = try await index.queue.read { db -> (FolderBaseline, [String: Int64]) in
            let consumed = try index.consumed(db)
            return (FolderBaseline(peer: index.peerID, time: Int64(Date().timeIntervalSince1970 * 1000), covered: consumed,
                                   records: try index.allRecords(db).map(FolderBaseline.Entry.init), erased: try FolderIndex.erased(db)), consumed)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try SealedFile.write(try SealedFile.seal(try encoder.encode(baseline), kind: .baseline, key: key), to: layout.baseline(index.peerID))
        // What every other known peer has of this device's logs.
        var horizon = consumed[index.peerID] ?? 0
        for peer in layout.peerIDs() where peer != index.peerID {
            guard let data = FolderLayout.read(layout.receipts(peer)),
                  let receipt = try? JSONDecoder().decode(FolderReceipt.self, from: data) else { return 0 }
            horizon = min(horizon, receipt.consumed[index.peerID] ?? 0)
        }
        layout.removeStaleTemporaryFiles(of: index.peerID)
        var removed = 0
        for (name, url) in layout.logFiles(index.peerID) where name.seq <= horizon {
            if (try? FileManager.default.removeItem(at: url)) != nil { removed += 1 }
        }
        return removed
    }
}

extension FolderLayout {
    /// Removes this device's temporary files (`.tmp-…`) older than an hour: left by a write
    /// that a crash interrupted before its rename. Other devices' files are never touched.
    func removeStaleTemporaryFiles(of peer: String, olderThan age: TimeInterval = 3600) {
        let limit = Date().addingTimeInterval(-age)
        for directory in [self.peer(peer), logs(peer)] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] where name.hasPrefix(".tmp-") {
                let url = directory.appendingPathComponent(name)
                guard let modified = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date,
                      modified < limit else { continue }
                try? FileManager.default.removeItem(at: url)
            }
        }
    }
}
