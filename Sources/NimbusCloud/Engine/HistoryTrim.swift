import Foundation
import GRDB
import Nimbus

/// Purges persistent history the mirroring and every other registered consumer has read,
/// once it is older than the retention (decision 0071): history no longer grows until the
/// app purges it, and no reader loses what it has not read.
///
/// Only a prefix goes (transactions up to the slowest registered consumer's position that
/// are also older than the retention), so a reader with an older token learns it through
/// `historyTokenExpired`, as after any purge. An app that reads history without registering
/// as a consumer keeps the retention (7 days by default) to catch up.
enum HistoryTrim {
    /// Purges what may go; returns how many transactions went.
    @discardableResult
    static func run(_ store: PersistentStore, retention: TimeInterval, now: Date = Date()) throws -> Int {
        try store.writeTransaction { db in
            guard try db.tableExists("ATRANSACTION"), try db.tableExists("ANIMBUSHISTORYCONSUMER") else { return 0 }
            guard let slowest = try Int64.fetchOne(db, sql: "SELECT min(ZTRANSACTION) FROM ANIMBUSHISTORYCONSUMER") else { return 0 }
            let cutoff = now.addingTimeInterval(-retention).timeIntervalSinceReferenceDate
            guard let upTo = try Int64.fetchOne(db, sql: "SELECT max(Z_PK) FROM ATRANSACTION WHERE Z_PK <= ? AND ZTIMESTAMP < ?",
                                                arguments: [slowest, cutoff]) else { return 0 }
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM ATRANSACTION WHERE Z_PK <= ?", arguments: [upTo]) ?? 0
            try db.execute(sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID <= ?", arguments: [upTo])
            try db.execute(sql: "DELETE FROM ATRANSACTION WHERE Z_PK <= ?", arguments: [upTo])
            return count
        }
    }
}
