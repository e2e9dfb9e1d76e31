import Foundation
import GRDB

/// Copies a store Apple's Core Data wrote into a new Nimbus store of the same model.
///
/// The source is read without changing a byte of it (decision 0121) and must have the
/// layout the model implies (decision 0120). Rows are copied table by table with their keys,
/// entity numbers, optimistic-locking versions, ordering columns and the external-storage
/// files they name, in one transaction: the new store has every object under the same
/// primary key, so object URIs keep their entity and key (with the new store's identifier).
///
/// For example:
///
/// ```swift
/// let model = try ManagedObjectModel(contentsOf: appModelURL)
/// let summary = try CoreDataImport.run(from: appleStoreURL, model: model, to: nimbusStoreURL) { progress in
///     print("\(progress.tablesCopied)/\(progress.tableCount) \(progress.table)")
/// }
/// ```
public enum CoreDataImport {
    /// How far an import is.
    public struct Progress: Sendable {
        /// The table just copied.
        public var table: String
        /// Rows copied from it.
        public var rows: Int
        /// Tables copied so far.
        public var tablesCopied: Int
        /// Tables to copy in all.
        public var tableCount: Int
    }

    /// What an import copied.
    public struct Summary: Sendable {
        /// Objects copied, by entity name (sub-entities apart).
        public var objectsByEntity: [String: Int]
        /// Rows of join tables (many-to-many relationships).
        public var joinRows: Int
        /// External-storage files copied.
        public var externalFiles: Int
        /// The source's Core Data framework version (`NSPersistenceFrameworkVersion`).
        public var frameworkVersion: String?
        /// What was asked for and is not there or not copied, as readable notes.
        public var notes: [String]
    }

    /// Copies the Apple store at `source` into a new Nimbus store at `destination`.
    ///
    /// - Parameters:
    ///   - source: the store Apple's Core Data wrote (left unchanged).
    ///   - model: the model version the store was written with.
    ///   - destination: the Nimbus store to create; it must not exist.
    ///   - withHistory: record persistent history in the new store; Apple's own history
    ///     (`ATRANSACTION`, `ACHANGE`) is not copied (a note says so when the source has some).
    ///   - withCloudMetadata: asked to carry CloudKit mirroring metadata (`ANSCK*`) over; not
    ///     done yet (a note says so when the source has some).
    ///   - progress: called after each table.
    /// - Returns: what was copied.
    /// - Throws: ``NimbusError/Code-swift.struct/storeAlreadyAdded`` when `destination` exists
    ///   (nothing is changed), ``NimbusError/Code-swift.struct/modelMismatch`` naming what
    ///   differs when the source is not a store of `model`; on any failure the destination is
    ///   removed and the source is untouched.
    public static func run(from source: URL, model: ManagedObjectModel, to destination: URL, withHistory: Bool = false,
                           withCloudMetadata: Bool = false, progress: (Progress) -> Void = { _ in }) throws -> Summary {
        guard !FileManager.default.fileExists(atPath: destination.path) else {
            throw NimbusError(.storeAlreadyAdded, "\(destination.path) already exists; nothing was changed (give a new file)")
        }
        guard let inspector = try StoreInspector.inspect(path: source.path) else {
            throw NimbusError(.storeNotFound, "no store at \(source.path)")
        }
        let target = try UntouchedOpening.target(for: source.path)
        defer { if let folder = target.copyFolder { try? FileManager.default.removeItem(at: folder) } }
        let layout = try StoreLayout.read(path: target.path, model: model, configuration: nil, reportingAs: source.path)

        var description = PersistentStoreDescription(url: destination)
        description.persistentHistoryTracking = withHistory
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let created = try coordinator.addPersistentStore(with: description)
        try coordinator.removePersistentStore(created)
        do {
            var summary = try copyRows(from: target.path, layout: layout, model: model, to: destination, progress: progress)
            summary.frameworkVersion = inspector.metadata.frameworkVersion
            summary.externalFiles = try copyExternalFiles(from: source, to: destination)
            let reader = try StoreConnection.queue(path: target.path, readOnly: true)
            defer { try? reader.close() }
            let sourceTables = try reader.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
            if withHistory, sourceTables.contains("ATRANSACTION") {
                summary.notes.append("the source's persistent history (ATRANSACTION, ACHANGE) was not copied; the new store records history from now on")
            }
            if withCloudMetadata {
                summary.notes.append(sourceTables.contains { $0.hasPrefix("ANSCK") }
                    ? "the source's CloudKit mirroring metadata (ANSCK*) was not carried over: not supported yet"
                    : "the source has no CloudKit mirroring metadata (ANSCK*)")
            }
            return summary
        } catch {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: destination.path + suffix) }
            try? FileManager.default.removeItem(at: ExternalStorage.folder(for: destination))
            throw error
        }
    }

    private static func copyRows(from sourcePath: String, layout: StoreLayout, model: ManagedObjectModel, to destination: URL,
                                 progress: (Progress) -> Void) throws -> Summary {
        let schema = model.schema
        let attachPath = sourcePath.hasPrefix("file:") ? sourcePath : UntouchedOpening.readOnlyURI(sourcePath)
        var summary = Summary(objectsByEntity: [:], joinRows: 0, externalFiles: 0, frameworkVersion: nil, notes: [])
        let queue = try StoreConnection.queue(path: destination.path)
        defer { try? queue.close() }
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "ATTACH DATABASE ? AS coredata", arguments: [attachPath])
            defer { try? db.execute(sql: "DETACH DATABASE coredata") }
            try db.inTransaction {
                let tableCount = schema.tables.count + schema.joinTables.count
                var copied = 0
                func column(_ table: String, _ name: String) -> String {
                    guard let alias = layout.columnAliases[table]?[name] else { return name.quotedDatabaseIdentifier }
                    return alias.map(\.quotedDatabaseIdentifier) ?? "NULL"
                }
                func sourceTable(_ name: String) -> String { "coredata." + (layout.tableAliases[name] ?? name).quotedDatabaseIdentifier }
                for table in schema.tables {
                    let names = ["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name)
                    try db.execute(sql: "INSERT INTO main.\(table.name.quotedDatabaseIdentifier) (\(names.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) SELECT \(names.map { column(table.name, $0) }.joined(separator: ", ")) FROM \(sourceTable(table.name))")
                    let rows = db.changesCount
                    for row in try Row.fetchAll(db, sql: "SELECT Z_ENT, count(*) FROM main.\(table.name.quotedDatabaseIdentifier) GROUP BY Z_ENT") {
                        if let entity = model.entity(number: row[0]) { summary.objectsByEntity[entity.name] = row[1] }
                    }
                    copied += 1
                    progress(Progress(table: table.name, rows: rows, tablesCopied: copied, tableCount: tableCount))
                }
                for join in schema.joinTables {
                    let names = [join.firstColumn, join.secondColumn] + join.orderColumns
                    try db.execute(sql: "INSERT INTO main.\(join.name.quotedDatabaseIdentifier) (\(names.map(\.quotedDatabaseIdentifier).joined(separator: ", "))) SELECT \(names.map { column(join.name, $0) }.joined(separator: ", ")) FROM \(sourceTable(join.name))")
                    summary.joinRows += db.changesCount
                    copied += 1
                    progress(Progress(table: join.name, rows: db.changesCount, tablesCopied: copied, tableCount: tableCount))
                }
                // Keys continue after the highest the source used.
                for entity in model.entities where entity.superentity == nil {
                    let table = schema.mapping(for: entity).table.quotedDatabaseIdentifier
                    try db.execute(sql: """
                        UPDATE main.Z_PRIMARYKEY SET Z_MAX = max(coalesce((SELECT Z_MAX FROM coredata.Z_PRIMARYKEY WHERE Z_ENT = ?), 0),
                                                             coalesce((SELECT max(Z_PK) FROM main.\(table)), 0))
                        WHERE Z_ENT = ?
                        """, arguments: [entity.entityNumber, entity.entityNumber])
                }
                return .commit
            }
        }
        return summary
    }

    /// Copies the files of `.<store>_SUPPORT/_EXTERNAL_DATA`; returns how many.
    private static func copyExternalFiles(from source: URL, to destination: URL) throws -> Int {
        let from = ExternalStorage.dataFolder(for: source), to = ExternalStorage.dataFolder(for: destination)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: from.path), !names.isEmpty else { return 0 }
        do {
            try FileManager.default.createDirectory(at: to, withIntermediateDirectories: true)
            for name in names { try FileManager.default.copyItem(at: from.appendingPathComponent(name), to: to.appendingPathComponent(name)) }
        } catch {
            throw NimbusError(.io, "cannot copy the external data files of \(source.path): \(error.localizedDescription)", underlying: error)
        }
        return names.count
    }
}
