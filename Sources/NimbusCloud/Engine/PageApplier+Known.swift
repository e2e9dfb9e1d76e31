import Foundation
import GRDB
import struct NimbusWire.Record
import NimbusWire

extension PageApplier {
    /// What this device knows of a page's records, the records they name, and their
    /// memberships, read in one transaction.
    func load(_ records: [Record], deletions: [DeletedRecord]) throws -> Known {
        var names = Set(records.map(\.recordName)).union(deletions.map(\.recordName))
        for record in records { names.formUnion(references(of: record)) }
        for record in records { if let link = LinkRecord(record) { names.insert(link.first); names.insert(link.second) } }
        return try mirror.store.readTransaction { db in
            var known = Known()
            known.retired = Set(try MetadataSchema.stored(db)?.retired ?? [])
            (known.rows, known.pending, known.tombstones) = try SyncMetadata.records(named: names, db)
            // A reference to a record that sharing moved (a record not moved with it still
            // names the old one) is to the moved record.
            let unresolved = names.filter { known.rows[$0] == nil && !known.tombstones.contains($0) }
                .subtracting(records.map(\.recordName))
            if !unresolved.isEmpty, try !Placement.isEmpty(db) {
                for (name, row) in try MovedRecords.moved(from: unresolved, db) { known.rows[name] = row }
            }
            for record in records {
                guard let link = LinkRecord(record), let first = known.rows[link.first], let second = known.rows[link.second],
                      let row = try Row.fetchOne(db, sql: """
                        SELECT ZLINKED, ZTIME, ZDEVICE, ZPENDING FROM ANIMBUSCLOUDLINK WHERE ZRELATIONSHIP = ? AND ZFIRSTENTITY = ?
                        AND ZFIRSTPK = ? AND ZSECONDENTITY = ? AND ZSECONDPK = ?
                        """, arguments: [link.key, first.entity, first.primaryKey, second.entity, second.primaryKey]) else { continue }
                known.links["\(link.key)#\(link.first)#\(link.second)"] = (row[0], HLCStamp(time: row[1], device: row[2]), row[3])
            }
            return known
        }
    }

}
