import Foundation
import GRDB

/// Reads and purges a store's history.
extension SQLiteDatabase {
    /// Checks that a token belongs to this store and is not from the future.
    func validate(_ token: PersistentHistoryToken, _ db: Database) throws {
        guard token.storeIdentifier == identifier else {
            throw NimbusError(.invalidToken, "the history token belongs to store \(token.storeIdentifier), not \(identifier)")
        }
        let last = try HistoryStore.lastTransaction(db)
        guard token.transactionNumber <= last else {
            throw NimbusError(.invalidToken, "the history token \(token) is past the store's last transaction \(last)")
        }
    }

    /// The transaction number a bound stands for: history after it is fetched, history up to it purged.
    private func transactionNumber(for bound: PersistentHistoryChangeRequest.Bound, purging: Bool, _ db: Database) throws -> Int64 {
        switch bound {
        case let .token(token):
            guard let token else { return purging ? try HistoryStore.lastTransaction(db) : 0 }
            try validate(token, db)
            if !purging { try checkNotExpired(token.transactionNumber, db) }
            return token.transactionNumber
        case let .transaction(number):
            guard number >= 0, number <= (try HistoryStore.lastTransaction(db)) else {
                throw NimbusError(.invalidToken, "transaction \(number) is not in the store's history")
            }
            if !purging { try checkNotExpired(number, db) }
            return number
        case let .date(date):
            let time = date.timeIntervalSinceReferenceDate
            let sql = purging ? "SELECT max(Z_PK) FROM ATRANSACTION WHERE ZTIMESTAMP < ?" : "SELECT max(Z_PK) FROM ATRANSACTION WHERE ZTIMESTAMP <= ?"
            return try Int64.fetchOne(db, sql: sql, arguments: [time]) ?? (purging ? 0 : try firstBefore(db))
        }
    }

    /// Throws ``NimbusError/Code-swift.struct/historyTokenExpired`` when history after
    /// `number` was partly purged. Transaction numbers are consecutive and purges remove a
    /// prefix, so history is whole after `number` exactly when the first transaction kept
    /// (or, with none kept, the next one to be written) follows it directly.
    private func checkNotExpired(_ number: Int64, _ db: Database) throws {
        let first = try Int64.fetchOne(db, sql: "SELECT min(Z_PK) FROM ATRANSACTION") ?? (try HistoryStore.lastTransaction(db) + 1)
        guard number >= first - 1 else {
            throw NimbusError(.historyTokenExpired, "the history after transaction \(number) was purged up to transaction \(first - 1); "
                + "refetch the objects you show, then continue from the store's current history token")
        }
    }

    private func firstBefore(_ db: Database) throws -> Int64 {
        (try Int64.fetchOne(db, sql: "SELECT min(Z_PK) FROM ATRANSACTION") ?? 1) - 1
    }

    func fetchHistory(_ request: PersistentHistoryChangeRequest, after bound: PersistentHistoryChangeRequest.Bound, _ db: Database) throws -> PersistentHistoryResult {
        guard try HistoryStore.isPrepared(db) else { return PersistentHistoryResult() }
        let after = try transactionNumber(for: bound, purging: false, db)
        var transactions: [PersistentHistoryTransaction] = []
        var byNumber: [Int64: Int] = [:]
        let rows = try Row.fetchCursor(db, sql: """
            SELECT t.Z_PK, t.ZTIMESTAMP, a.ZNAME, b.ZNAME, c.ZNAME, p.ZNAME FROM ATRANSACTION t
            LEFT JOIN ATRANSACTIONSTRING a ON a.Z_PK = t.ZAUTHORTS LEFT JOIN ATRANSACTIONSTRING b ON b.Z_PK = t.ZBUNDLEIDTS
            LEFT JOIN ATRANSACTIONSTRING c ON c.Z_PK = t.ZCONTEXTNAMETS LEFT JOIN ATRANSACTIONSTRING p ON p.Z_PK = t.ZPROCESSIDTS
            WHERE t.Z_PK > ? ORDER BY t.Z_PK
            """, arguments: [after])
        while let row = try rows.next() {
            let transaction = PersistentHistoryTransaction(
                token: PersistentHistoryToken(storeIdentifier: identifier, transactionNumber: row[0]),
                timestamp: Date(timeIntervalSinceReferenceDate: row[1] ?? 0), author: row[2], contextName: row[4],
                bundleID: row[3], processID: row[5], changes: nil)
            if let predicate = request.transactionPredicate {
                var fields: [String: Any] = ["timestamp": transaction.timestamp, "transactionNumber": transaction.transactionNumber]
                fields["author"] = transaction.author
                fields["contextName"] = transaction.contextName
                fields["bundleID"] = transaction.bundleID
                fields["processID"] = transaction.processID
                guard try predicate.evaluate(with: fields) else { continue }
            }
            byNumber[transaction.transactionNumber] = transactions.count
            transactions.append(transaction)
        }
        if request.resultType == .transactionsAndChanges || request.changePredicate != nil {
            for index in transactions.indices { transactions[index].changes = [] }
            // Apple's Core Data keeps tombstones in ZTOMBSTONE0… columns, and numbers the
            // ZCOLUMNS bitmap its own way: its changes are read without either.
            let tombstone = try db.columns(in: "ACHANGE").contains { $0.name == "ZTOMBSTONE" } ? "ZTOMBSTONE" : "NULL"
            let changes = try Row.fetchCursor(db, sql: """
                SELECT Z_PK, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZTRANSACTIONID, \(isCoreDataStore ? "NULL" : "ZCOLUMNS"), \(tombstone) FROM ACHANGE
                WHERE ZTRANSACTIONID > ? ORDER BY Z_PK
                """, arguments: [after])
            let decoder = JSONDecoder()
            while let row = try changes.next() {
                let number: Int64 = row[4]
                guard let position = byNumber[number], let entityNumber = Int.fromDatabaseValue(row[2] as DatabaseValue), let entity = model.entity(number: entityNumber),
                      let type = PersistentHistoryChange.ChangeType(rawValue: row[1]) else { continue }
                var change = PersistentHistoryChange(
                    changeID: row[0], changedObjectID: ManagedObjectID(entity: entity, storeKey: storeKey, primaryKey: row[3]),
                    changeType: type, updatedProperties: nil, tombstone: nil, transactionNumber: number)
                if let bitmap = row[5] as Data? {
                    change.updatedProperties = Set(HistoryStore.indexes(in: bitmap).compactMap { $0 < entity.properties.count ? entity.properties[$0].name : nil })
                }
                if let tombstone = row[6] as Data? {
                    change.tombstone = try? decoder.decode([String: PropertyValue].self, from: tombstone)
                }
                if let predicate = request.changePredicate {
                    let fields: [String: Any] = ["changedEntity": entity.name, "changeType": type.rawValue,
                                                 "updatedProperties": Array(change.updatedProperties ?? [])]
                    guard try predicate.evaluate(with: fields) else { continue }
                }
                transactions[position].changes!.append(change)
            }
            if request.changePredicate != nil { transactions.removeAll { $0.changes?.isEmpty ?? true } }
            if request.resultType != .transactionsAndChanges { for index in transactions.indices { transactions[index].changes = nil } }
        }
        var result = PersistentHistoryResult(status: true, count: transactions.count)
        if request.resultType == .transactionsOnly || request.resultType == .transactionsAndChanges { result.transactions = transactions }
        return result
    }

    func purgeHistory(_ request: PersistentHistoryChangeRequest, before bound: PersistentHistoryChangeRequest.Bound, _ db: Database) throws -> PersistentHistoryResult {
        guard try HistoryStore.isPrepared(db) else { return PersistentHistoryResult() }
        let upTo = try transactionNumber(for: bound, purging: true, db)
        if !request.ignoresConsumers {
            let behind = try Row.fetchAll(db, sql: "SELECT ZNAME, ZTRANSACTION FROM ANIMBUSHISTORYCONSUMER WHERE ZTRANSACTION < ? ORDER BY ZNAME", arguments: [upTo])
            if !behind.isEmpty {
                let names = behind.map { "\($0[0] as String) (read up to \($0[1] as Int64))" }.joined(separator: ", ")
                throw NimbusError(.historyPurgeRefused, "purging history up to transaction \(upTo) would remove history not yet read by: \(names); "
                    + "purge up to the slowest consumer's token, or set ignoresConsumers to force")
            }
        }
        let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM ATRANSACTION WHERE Z_PK <= ?", arguments: [upTo]) ?? 0
        try db.execute(sql: "DELETE FROM ACHANGE WHERE ZTRANSACTIONID <= ?", arguments: [upTo])
        try db.execute(sql: "DELETE FROM ATRANSACTION WHERE Z_PK <= ?", arguments: [upTo])
        return PersistentHistoryResult(status: true, count: count)
    }
}
