import Foundation
import GRDB
import struct NimbusWire.Record
import NimbusWire

// Metadata reads and writes of a whole page at once, for the importer and exporter: a
// statement per chunk of names instead of several per record, and prepared statements
// reused from the connection's cache for the writes that stay one per record.
extension SyncMetadata {
    /// Names per `IN (…)` list (far under SQLite's limit on bound parameters).
    static let chunkSize = 500

    /// What is on record for `names`: their rows (with their pending fields) and which of the
    /// names without a row are tombstoned. The same answers as ``record(named:_:)``,
    /// ``pendingFields(entity:primaryKey:_:)`` and ``isTombstoned(_:_:)`` asked per name.
    static func records(named names: some Collection<String>, _ db: Database)
        throws -> (rows: [String: RecordRow], pending: [ObjectKey: [String: HLCStamp]], tombstones: Set<String>) {
        var rows: [String: RecordRow] = [:]
        var pending: [ObjectKey: [String: HLCStamp]] = [:]
        var tombstones: Set<String> = []
        let all = Array(names)
        for start in stride(from: 0, to: all.count, by: chunkSize) {
            let chunk = Array(all[start..<min(start + chunkSize, all.count)])
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            let found = try Row.fetchAll(db, sql: """
                SELECT r.ZENTITY, r.ZPK, r.ZRECORDNAME, r.ZCHANGETAG, r.ZANCESTOR, p.ZFIELDS FROM ANIMBUSCLOUDRECORD r
                LEFT JOIN ANIMBUSCLOUDPENDING p ON p.ZENTITY = r.ZENTITY AND p.ZPK = r.ZPK
                WHERE r.ZRECORDNAME IN (\(marks))
                """, arguments: StatementArguments(chunk))
            for row in found {
                let record = RecordRow(entity: row[0], primaryKey: row[1], recordName: row[2], changeTag: row[3],
                                       ancestor: (row[4] as Data?).flatMap { try? WireCoding.record(from: $0) })
                rows[record.recordName] = record
                if let fields = row[5] as Data? {
                    pending[ObjectKey(entity: record.entity, primaryKey: record.primaryKey)] = try WireCoding.stamps(from: fields)
                }
            }
            let missing = chunk.filter { rows[$0] == nil }
            guard !missing.isEmpty else { continue }
            let missingMarks = Array(repeating: "?", count: missing.count).joined(separator: ",")
            tombstones.formUnion(try String.fetchAll(db, sql: "SELECT ZRECORDNAME FROM ANIMBUSCLOUDTOMBSTONE WHERE ZRECORDNAME IN (\(missingMarks))",
                                                     arguments: StatementArguments(missing)))
        }
        return (rows, pending, tombstones)
    }

    /// Maps objects to record names (replacing what each object or name had), with one
    /// prepared statement.
    static func mapRecords(_ mappings: [(entity: Int, primaryKey: Int64, name: String)], _ db: Database) throws {
        guard !mappings.isEmpty else { return }
        let statement = try db.cachedStatement(sql: "INSERT OR REPLACE INTO ANIMBUSCLOUDRECORD (ZENTITY, ZPK, ZRECORDNAME) VALUES (?, ?, ?)")
        for mapping in mappings { try statement.execute(arguments: [mapping.entity, mapping.primaryKey, mapping.name]) }
    }

    /// ``confirm(_:_:)`` for many records, with one prepared statement.
    static func confirmAll(_ records: some Sequence<Record>, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: "UPDATE ANIMBUSCLOUDRECORD SET ZCHANGETAG = ?, ZANCESTOR = ? WHERE ZRECORDNAME = ?")
        for record in records {
            try statement.execute(arguments: [record.changeTag, try WireJSONWriter.encode(record), record.recordName])
        }
    }
}
