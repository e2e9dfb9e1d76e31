import Foundation
import GRDB
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One write transaction held open on several store files at once, so that a save (or a
/// batch request) that touches several stores commits all of them or none.
///
/// Each store's writer is entered in turn (in the order given, which callers keep stable so
/// two such transactions never wait on each other in opposite orders) and an `IMMEDIATE`
/// transaction begins on it. While the transaction is open, ``SQLiteDatabase/write(_:)``
/// calls on those stores from the thread that holds it join it instead of opening their
/// own. When the work succeeds every store commits; when anything throws (a conflict, a
/// constraint, a hook, a full disk) every store rolls back.
///
/// SQLite cannot commit two WAL files in one atomic step; the commits happen one after the
/// other once every write has succeeded, so only a failure of a `COMMIT` itself (an I/O
/// error at that instant) could leave the stores apart (see decision 0031).
enum SharedTransaction {
    /// Runs `work` inside one write transaction on each database.
    static func run<T>(across databases: [SQLiteDatabase], _ work: () throws -> T) throws -> T {
        var distinct: [SQLiteDatabase] = []
        for database in databases where !distinct.contains(where: { $0 === database }) { distinct.append(database) }
        var result: T?
        try open(distinct[...], handles: []) {
            result = try work()
        }
        return result!
    }

    private static func open(_ remaining: ArraySlice<SQLiteDatabase>, handles: [(SQLiteDatabase, Database)],
                             _ work: () throws -> Void) throws {
        guard let database = remaining.first else {
            try work()
            // Every store's writes succeeded: commit them all.
            for (_, db) in handles { try db.commitWriteTransaction() }
            return
        }
        do {
            try database.gate.enter(database.identifier)
            defer { database.gate.leave() }
            try database.writer.writeWithoutTransaction { db in
                try db.beginWriteTransaction()
                database.joinTransaction(db)
                defer { database.leaveTransaction() }
                do {
                    try open(remaining.dropFirst(), handles: handles + [(database, db)], work)
                } catch {
                    if db.isInsideTransaction { try? db.rollback() }
                    throw error
                }
            }
        } catch let error as DatabaseError {
            throw NimbusError.from(error, path: database.identifier)
        }
    }
}

/// The transaction a store's writer has open for a ``SharedTransaction``, and the thread
/// that holds it (only that thread joins it).
final class JoinedTransaction: Sendable {
    private struct Holder: @unchecked Sendable {
        var db: Database
        var thread: pthread_t
    }
    private let holder = Mutex<Holder?>(nil)

    func set(_ db: Database) { holder.withLock { $0 = Holder(db: db, thread: pthread_self()) } }
    func clear() { holder.withLock { $0 = nil } }

    /// The open transaction's database, when the current thread holds it.
    var current: Database? {
        holder.withLock { holder in
            guard let holder, pthread_equal(holder.thread, pthread_self()) != 0 else { return nil }
            return holder.db
        }
    }
}

extension SQLiteDatabase {
    func joinTransaction(_ db: Database) { joined.set(db) }
    func leaveTransaction() { joined.clear() }
}
