import Foundation
import GRDB
import Logging

/// `NIMBUS_SQL_DEBUG=1…4`, as Core Data's `com.apple.CoreData.SQLDebug`:
/// 1 prints each SQL statement, 2 adds fetch row counts and times, 3 adds bound values and
/// statement timings, 4 adds SQLite's query plan for fetches.
enum SQLDebug {
    static let level: Int = Int(ProcessInfo.processInfo.environment["NIMBUS_SQL_DEBUG"] ?? "") ?? 0

    static let logger: Logger = {
        var logger = Logger(label: "nimbus.sql")
        logger.logLevel = .info
        return logger
    }()

    /// Installs statement tracing on a connection when debugging is on.
    static func install(on db: Database) {
        guard level > 0 else { return }
        if level >= 3 {
            db.trace(options: .profile) { event in
                if case let .profile(statement, duration) = event {
                    logger.info("\(statement.expandedSQL) (\(String(format: "%.3f", duration * 1000)) ms)")
                }
            }
        } else {
            db.trace(options: .statement) { event in
                if case let .statement(statement) = event { logger.info("\(statement.sql)") }
            }
        }
    }

    /// Logs a fetch's outcome (level 2+) and its query plan (level 4).
    static func logFetch(sql: String, arguments: StatementArguments, rows: Int, started: ContinuousClock.Instant, db: Database) {
        guard level >= 2 else { return }
        let elapsed = ContinuousClock.now - started
        logger.info("fetch returned \(rows) rows in \(elapsed)")
        if level >= 4, let plan = try? Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments) {
            for row in plan { logger.info("  plan: \(row["detail"] as String? ?? "")") }
        }
    }
}
