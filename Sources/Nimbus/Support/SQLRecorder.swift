import GRDB
import Synchronization

/// Records the SQL statements a store executes, for tests that assert the SQL sent.
package final class SQLRecorder: Sendable {
    private let statements = Mutex<[String]>([])

    package init() {}

    func install(on db: Database) {
        db.trace(options: .statement) { [self] event in
            if case let .statement(statement) = event {
                let sql = statement.sql
                statements.withLock { $0.append(sql) }
            }
        }
    }

    /// The statements recorded so far.
    package var recorded: [String] { statements.withLock { $0 } }

    /// Forgets the statements recorded so far.
    package func reset() { statements.withLock { $0.removeAll() } }
}
