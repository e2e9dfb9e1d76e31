import Foundation
import GRDB

/// External binary storage as Core Data lays it out (decision 0026): a value of an
/// attribute that allows it is stored as `0x01` + its bytes, or, from
/// ``ExternalStorage/threshold`` bytes on, as `0x02` + the name of a file in
/// `.<store>_SUPPORT/_EXTERNAL_DATA/`. Files are written before the save's transaction
/// and removed after it commits when the row that named them is updated or deleted.
extension SQLiteDatabase {
    /// The request with external-storage values in their stored form, and the files written.
    func externalize(_ request: SaveRequest) throws -> (SaveRequest, [String]) {
        guard usesExternalStorage, let folder = externalDataFolder else { return (request, []) }
        var request = request
        var written: [String] = []
        do {
            for i in request.inserts.indices {
                for index in externalIndexes[request.inserts[i].id.entity.entityNumber - 1] {
                    let (stored, file) = try ExternalStorage.encode(request.inserts[i].values[index], folder: folder)
                    request.inserts[i].values[index] = stored
                    if let file { written.append(file) }
                }
            }
            for i in request.updates.indices {
                let external = externalIndexes[request.updates[i].id.entity.entityNumber - 1]
                guard !external.isEmpty else { continue }
                for j in request.updates[i].changes.indices where external.contains(request.updates[i].changes[j].index) {
                    let (stored, file) = try ExternalStorage.encode(request.updates[i].changes[j].value, folder: folder)
                    request.updates[i].changes[j].value = stored
                    if let file { written.append(file) }
                }
            }
        } catch {
            ExternalStorage.remove(written, folder: folder)
            throw error
        }
        return (request, written)
    }

    /// The files named by the values a save replaces or deletes, read in its transaction
    /// before it writes.
    func obsoleteExternalFiles(of request: SaveRequest, _ db: Database) throws -> [String] {
        guard usesExternalStorage else { return [] }
        var files: [String] = []
        for update in request.updates {
            let external = externalIndexes[update.id.entity.entityNumber - 1]
            let changed = update.changes.map(\.index).filter(external.contains)
            files += try externalFiles(of: update.id.entity, keys: [update.id.primaryKey], only: changed, db)
        }
        for delete in request.deletes {
            files += try externalFiles(of: delete.id.entity, keys: [delete.id.primaryKey], db)
        }
        return files
    }

    /// The files named by rows of an entity (by some of its external attributes, or all).
    func externalFiles(of entity: EntityDescription, keys: [Int64], only indexes: [Int]? = nil, _ db: Database) throws -> [String] {
        let external = indexes ?? externalIndexes[entity.entityNumber - 1]
        guard externalDataFolder != nil, !external.isEmpty, !keys.isEmpty else { return [] }
        let mapping = schema.mapping(for: entity)
        let columns = external.compactMap { index -> String? in
            if case let .column(column) = mapping.storage[index] { return column }
            return nil
        }
        var files: [String] = []
        for chunk in stride(from: 0, to: keys.count, by: 500) {
            let list = keys[chunk..<min(chunk + 500, keys.count)].map(String.init).joined(separator: ",")
            for column in columns {
                let sql = "SELECT \(column.quotedDatabaseIdentifier) FROM \(mapping.table.quotedDatabaseIdentifier) WHERE Z_PK IN (\(list)) AND substr(\(column.quotedDatabaseIdentifier), 1, 1) = X'02'"
                for data in try Data.fetchAll(db, sql: sql) {
                    if let name = ExternalStorage.fileName(in: data) { files.append(name) }
                }
            }
        }
        return files
    }

    /// Removes files no row names any more (after the transaction that dropped them committed).
    func removeExternalFiles(_ names: [String]) {
        guard let folder = externalDataFolder, !names.isEmpty else { return }
        ExternalStorage.remove(names, folder: folder)
    }
}
