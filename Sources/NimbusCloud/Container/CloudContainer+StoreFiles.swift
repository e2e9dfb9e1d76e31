import Foundation
import GRDB
import Nimbus

extension CloudContainer {
    /// Copies a store file safely (SQLite's backup, consistent even while the store is open
    /// and in WAL mode — copying the `.sqlite` file by hand can miss committed pages still
    /// in the `-wal` file), optionally without its cloud metadata: a clean local copy for a
    /// backup or an export, which never syncs as the original.
    ///
    /// For example:
    /// ```swift
    /// try CloudContainer.copyStore(at: storeURL, to: backupURL, strippingCloudMetadata: true)
    /// ```
    /// - Throws: ``CloudError`` with ``CloudError/Code-swift.struct/invalidConfiguration``
    ///   when the destination exists or the source is not a store; SQLite errors.
    public static func copyStore(at source: URL, to destination: URL, strippingCloudMetadata: Bool) throws {
        guard !FileManager.default.fileExists(atPath: destination.path) else {
            throw CloudError(.invalidConfiguration, "\(destination.path) already exists; copy to a new file")
        }
        guard FileManager.default.fileExists(atPath: source.path) else {
            throw CloudError(.invalidConfiguration, "no store at \(source.path)")
        }
        let from = try StoreConnection.queue(path: source.path, readOnly: true)
        guard try from.read({ try $0.tableExists("Z_METADATA") }) else {
            throw CloudError(.invalidConfiguration, "\(source.path) is not a Nimbus or Core Data store (no Z_METADATA table)")
        }
        do {
            let to = try StoreConnection.queue(path: destination.path)
            try from.backup(to: to)
            if strippingCloudMetadata {
                try to.write { db in
                    let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'ANIMBUSCLOUD%'")
                    for table in tables { try db.execute(sql: "DROP TABLE \(table.quotedDatabaseIdentifier)") }
                    if try db.tableExists("ANIMBUSHISTORYCONSUMER") {
                        try db.execute(sql: "DELETE FROM ANIMBUSHISTORYCONSUMER WHERE ZNAME = ?", arguments: [ChangeCapture.consumerName])
                    }
                }
                try to.vacuum()
            }
            try to.close()
        } catch {
            try? FileManager.default.removeItem(at: destination)
            throw error
        }
    }
}
