import Foundation
import Logging
import NIOConcurrencyHelpers
import NimbusWire
import PostgresNIO
import ServiceLifecycle

/// The scaling backend: PostgreSQL through a postgres-nio client pool.
///
/// Several server processes share one database: every modify locks its zone row
/// (`SELECT … FOR UPDATE`), and committed changes are announced with `pg_notify` inside the
/// transaction, which every process's ``PostgresChangeListener`` hears and delivers to the
/// devices connected to it.
///
/// For example:
/// ```swift
/// let storage = try PostgresStorage(url: "postgres://nimbus@127.0.0.1:5432/nimbus", logger: logger)
/// ```
package final class PostgresStorage: SyncStorage {
    package static let channel = "nimbus_changes"

    package let backendName = "postgres"
    package let changeFeed: ChangeFeed
    let client: PostgresClient
    let logger: Logger
    /// The push listener's own connection (outside the pool).
    let listenerConfiguration: PostgresConnection.Configuration
    /// How often this process sends a heartbeat on the change channel.
    let heartbeatInterval: Duration
    /// This process's heartbeats, sent and heard back.
    let liveness = ListenerLiveness(instance: UUID().uuidString)
    /// The hot-standby replica that change fetches and lookups read when it is safe, if any.
    let replica: PostgresReplica?

    /// How long the listener may go without hearing back a heartbeat PostgreSQL accepted (or
    /// without completing `LISTEN`) before it reconnects: three heartbeat intervals.
    var silenceLimit: Duration { heartbeatInterval * 3 }

    /// Creates a client for a `postgres://user:password@host:port/database` URL.
    /// - Parameters:
    ///   - url: The database URL.
    ///   - logger: Where the storage logs.
    ///   - changeFeed: Where committed changes, from every process, are delivered.
    ///   - heartbeatInterval: How often the push listener's liveness is checked (see ``PostgresChangeListener``).
    ///   - replicaURL: A streaming hot-standby replica of the database, read when safe (``PostgresReplica``).
    /// - Throws: `invalidArguments` for a URL that is not a PostgreSQL URL.
    package init(
        url: String, logger: Logger, changeFeed: ChangeFeed = ChangeFeed(), heartbeatInterval: Duration = .seconds(2), replicaURL: String? = nil
    ) throws {
        let parsed = try PostgresURL(url)
        var configuration = parsed.clientConfiguration
        configuration.options.maximumConnections = 16
        configuration.options.connectTimeout = .seconds(3)
        var listenerConfiguration = parsed.connectionConfiguration
        listenerConfiguration.options.connectTimeout = .seconds(3)
        listenerConfiguration.options.additionalStartupParameters = [("application_name", "nimbus-listener")]
        self.client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.listenerConfiguration = listenerConfiguration
        self.logger = logger
        self.changeFeed = changeFeed
        self.heartbeatInterval = heartbeatInterval
        let replica = try replicaURL.map { try PostgresReplica(url: $0, logger: logger) }
        self.replica = replica
        if let replica { changeFeed.observe { replica.positions.note($0) } }
    }

    /// The services that must run while the storage is used: the client pool, the listener
    /// and its heartbeat.
    package var services: [any Service] {
        [PostgresClientService(client: client), PostgresChangeListener(storage: self), PostgresHeartbeat(storage: self)]
            + (replica.map { [PostgresClientService(client: $0.client)] } ?? [])
    }

    package func migrate() async throws {
        try await PostgresSchema.migrate(self, logger: logger)
    }

    package func ping() async throws {
        try await query("SELECT 1", logger: logger)
    }

    // MARK: Accounts

    package func createUser(name: String, quotaBytes: Int64?, now: Int64) async throws -> UserAccount {
        do {
            let rows = try await query(
                "INSERT INTO users(name, created_at, used_bytes, quota_bytes) VALUES (\(name), \(now), 0, \(quotaBytes)) RETURNING id",
                logger: logger)
            for try await id in rows.decode(Int64.self) {
                return UserAccount(id: id, name: name, usedBytes: 0, quotaBytes: quotaBytes)
            }
            throw WireError(.internalError, "The new user has no id.")
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw WireError(.invalidArguments, "A user named '\(name)' already exists.")
        }
    }

    package func user(named name: String) async throws -> UserAccount? {
        let rows = try await query("SELECT id, name, used_bytes, quota_bytes FROM users WHERE name = \(name)", logger: logger)
        for try await row in rows { return try Self.user(row.makeRandomAccess()) }
        return nil
    }

    package func createToken(userID: Int64, device: String, tokenHash: String, expiresAt: Int64?, now: Int64) async throws -> Int64 {
        let rows = try await query(
            """
            INSERT INTO tokens(user_id, device, hash, created_at, expires_at, revoked)
            VALUES (\(userID), \(device), \(tokenHash), \(now), \(expiresAt), false) RETURNING id
            """, logger: logger)
        for try await id in rows.decode(Int64.self) { return id }
        throw WireError(.internalError, "The new token has no id.")
    }

    package func token(hash: String) async throws -> DeviceToken? {
        let rows = try await query(
            """
            SELECT t.id AS token_id, t.device, t.expires_at, t.revoked, u.id, u.name, u.used_bytes, u.quota_bytes
            FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = \(hash)
            """, logger: logger)
        for try await row in rows {
            let cells = row.makeRandomAccess()
            return DeviceToken(
                id: try cells["token_id"].decode(Int64.self), user: try Self.user(cells),
                device: try cells["device"].decode(String.self), expiresAt: try cells["expires_at"].decode(Int64?.self),
                revoked: try cells["revoked"].decode(Bool.self))
        }
        return nil
    }

    package func revokeTokens(userID: Int64, device: String?) async throws -> Int {
        let rows: CollectedRows
        if let device {
            rows = try await query("UPDATE tokens SET revoked = true WHERE user_id = \(userID) AND device = \(device) RETURNING id", logger: logger)
        } else {
            rows = try await query("UPDATE tokens SET revoked = true WHERE user_id = \(userID) RETURNING id", logger: logger)
        }
        return rows.collect().count
    }

    package func statistics() async throws -> (records: Int64, bytes: Int64) {
        let rows = try await query(
            "SELECT COUNT(*)::int8, COALESCE(SUM(size), 0)::int8 FROM records WHERE deleted_time IS NULL", logger: logger)
        for try await (count, bytes) in rows.decode((Int64, Int64).self) { return (count, bytes) }
        return (0, 0)
    }

    static func user(_ cells: PostgresRandomAccessRow) throws -> UserAccount {
        UserAccount(
            id: try cells["id"].decode(Int64.self), name: try cells["name"].decode(String.self),
            usedBytes: try cells["used_bytes"].decode(Int64.self), quotaBytes: try cells["quota_bytes"].decode(Int64?.self))
    }
}

/// Runs a `PostgresClient`'s pool as a service.
struct PostgresClientService: Service {
    let client: PostgresClient

    func run() async throws {
        await cancelWhenGracefulShutdown { await client.run() }
    }
}

extension PostgresStorage {
    /// How long a request waits for a pooled connection before answering `serviceUnavailable`
    /// (the pool would otherwise wait for PostgreSQL to come back forever).
    static let leaseDeadline: Duration = .seconds(3)

    /// How long a started operation may run before the request gives up with
    /// `serviceUnavailable`. Healthy batches take milliseconds. A restart of PostgreSQL no
    /// longer needs this (statements fail fast on a closed connection: see
    /// `PostgresConnection.run(_:logger:)`); it remains the bound for a connection whose peer
    /// vanished without closing it (a network partition), which TCP alone would notice only
    /// after many minutes.
    static let operationDeadline: Duration = .seconds(10)

    /// The two bounds of one use of a pooled connection.
    struct Deadlines: Sendable {
        /// How long to wait for a connection.
        var lease: Duration
        /// How long a started operation may run; nil: as long as it takes.
        var operation: Duration?

        /// A request's: ``leaseDeadline`` and ``operationDeadline``.
        static let request = Deadlines(lease: PostgresStorage.leaseDeadline, operation: PostgresStorage.operationDeadline)
        /// Schema migrations at start-up: PostgreSQL may still be starting, and a migration
        /// over a large table takes as long as it takes (a request's ten seconds would fail the
        /// start of a server upgraded over a big database).
        static let migration = Deadlines(lease: .seconds(60), operation: nil)
    }

    /// Runs `body` between `BEGIN` and `COMMIT` on one pooled connection. When `body` throws,
    /// the transaction is rolled back and the body's error is rethrown.
    ///
    /// This is not postgres-nio's `withTransaction`: its `ROLLBACK` after a statement failed
    /// because PostgreSQL went away was the statement that never returned (see
    /// `PostgresConnection.run(_:logger:)`). Here every statement fails fast on a closed
    /// connection, and a `ROLLBACK` that fails on an open one closes the connection, so that
    /// the pool never hands out a session left inside an aborted transaction.
    func transaction<Result: Sendable>(
        deadlines: Deadlines = .request, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let logger = self.logger
        return try await connection(deadlines: deadlines) { connection in
            try await connection.run("BEGIN", logger: logger)
            let result: Result
            do {
                result = try await body(connection)
            } catch {
                do {
                    try await connection.run("ROLLBACK", logger: logger)
                } catch {
                    if !connection.isClosed { try? await connection.close() }
                }
                throw error
            }
            try await connection.run("COMMIT", logger: logger)
            return result
        }
    }

    /// Runs one query on a pooled connection.
    @discardableResult
    func query(_ query: PostgresQuery, logger: Logger) async throws -> CollectedRows {
        try await connection { connection in try await connection.run(query, logger: logger) }
    }

    /// Runs `body` with a pooled connection. When no connection is leased within the lease
    /// deadline (``leaseDeadline`` for a request: PostgreSQL is down or restarting) the request
    /// fails with the retryable `serviceUnavailable`; once `body` has started it is cut short
    /// only after the operation deadline (``operationDeadline`` for a request).
    /// `client` is the primary's pool unless given (the replica's).
    func connection<Result: Sendable>(
        client: PostgresClient? = nil, deadlines: Deadlines = .request, _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        let state = NIOLockedValueBox<(started: Bool, finished: Bool)>((false, false))
        let client = client ?? self.client
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
            @Sendable func finish(_ result: Swift.Result<Result, any Error>, onlyIfNotStarted: Bool) {
                let resume = state.withLockedValue { state -> Bool in
                    if state.finished || (onlyIfNotStarted && state.started) { return false }
                    state.finished = true
                    return true
                }
                if resume { continuation.resume(with: result) }
            }
            Task {
                do {
                    let result = try await client.withConnection { connection -> Result in
                        let abandoned = state.withLockedValue { state -> Bool in
                            state.started = true
                            return state.finished
                        }
                        if abandoned { throw CancellationError() }
                        return try await body(connection)
                    }
                    finish(.success(result), onlyIfNotStarted: false)
                } catch {
                    // A failure before `body` started is the pool's (no connection could be
                    // opened, a tripped circuit breaker): an outage, whatever its type.
                    let leased = state.withLockedValue { $0.started }
                    finish(
                        .failure(leased ? error : WireError(.serviceUnavailable, "No database connection could be opened; retry shortly.", retryAfter: 1)),
                        onlyIfNotStarted: false)
                }
            }
            Task {
                try? await Task.sleep(for: deadlines.lease)
                finish(
                    .failure(WireError(.serviceUnavailable, "No database connection is available; retry shortly.", retryAfter: 1)),
                    onlyIfNotStarted: true)
                guard let operation = deadlines.operation else { return }
                try? await Task.sleep(for: operation - deadlines.lease)
                finish(
                    .failure(WireError(.serviceUnavailable, "The database stopped answering; retry shortly.", retryAfter: 1)),
                    onlyIfNotStarted: false)
            }
        }
    }
}
