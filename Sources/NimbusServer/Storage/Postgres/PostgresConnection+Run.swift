import Logging
import NIOCore
import PostgresNIO

extension PostgresConnection {
    /// Runs one statement and collects its rows, failing at once when the connection is closed.
    ///
    /// Every PostgreSQL statement of the server goes through this method rather than
    /// `PostgresConnection.query`, whose `async` form can wait forever: postgres-nio 1.33
    /// hands the statement to the channel with `channel.write(task, promise: nil)` and then
    /// awaits the statement's own promise. Once PostgreSQL has gone away, NIO closes the
    /// channel and tears its pipeline down; a statement written after that reaches no handler,
    /// NIO fails only the (absent) write promise, and the statement's promise is never
    /// completed. Under a PostgreSQL restart this happened to the `ROLLBACK` that
    /// `withTransaction` sends after a statement failed because the server died (see
    /// `docs/decisions/server-0007-errors-and-outages.md`).
    ///
    /// Here the check and the write happen in one turn of the connection's event loop: while
    /// the channel is active its pipeline is intact, so the connection's handler receives the
    /// statement and fails it if the connection closes later; when the channel is no longer
    /// active the statement is not sent and the call throws NIO's `ChannelError.ioOnClosedChannel`
    /// (which the server answers with the retryable `serviceUnavailable`).
    ///
    /// For example:
    /// ```swift
    /// let rows = try await connection.run("SELECT seq FROM zones WHERE id = \(id)", logger: logger)
    /// ```
    /// - Throws: `ChannelError.ioOnClosedChannel` when the connection is closed; the
    ///   statement's `PSQLError` otherwise.
    @discardableResult
    func run(_ query: PostgresQuery, logger: Logger) async throws -> CollectedRows {
        let eventLoop = self.eventLoop
        let result = try await eventLoop.flatSubmit { () -> EventLoopFuture<PostgresQueryResult> in
            guard !self.isClosed else { return eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
            return self.query(query, logger: logger)
        }.get()
        return CollectedRows(rows: result.rows)
    }
}
