import Foundation
import GRDB
import struct NimbusWire.Record
import NimbusWire

/// Records that arrived before a record they refer to, kept whole in the store file until
/// that record (or its deletion) arrives.
enum ParkedRecords {
    static func park(_ record: Record, waitingFor name: String, zone: String? = nil, _ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO ANIMBUSCLOUDPARKED (ZRECORDNAME, ZWAITINGFOR, ZRECORD, ZZONE) VALUES (?, ?, ?, ?)",
                       arguments: [record.recordName, name, try WireJSONWriter.encode(record), zone])
    }

    /// Parked records waiting for any of `names`.
    static func waiting(for names: [String], _ db: Database) throws -> [Record] {
        var records: [Record] = []
        for chunk in stride(from: 0, to: names.count, by: 500).map({ Array(names[$0..<min($0 + 500, names.count)]) }) {
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            for data in try Data.fetchAll(db, sql: "SELECT ZRECORD FROM ANIMBUSCLOUDPARKED WHERE ZWAITINGFOR IN (\(marks))",
                                          arguments: StatementArguments(chunk)) {
                records.append(try WireCoding.record(from: data))
            }
        }
        return records
    }

    static func count(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM ANIMBUSCLOUDPARKED") ?? 0
    }
}
