import Foundation
import Logging
import NIOConcurrencyHelpers
import NimbusWire
import PostgresNIO
import ServiceLifecycle

/// A streaming hot-standby replica that change fetches and lookups read when it is safe
/// (decision server-0027); every write, share change and access check stays on the primary.
///
/// A read goes to the replica only when the replica's copy of the zone is the incarnation the
/// client's token names and has replayed at least the token's position and the newest
/// position this process knows of (``ZonePositions``); otherwise, and whenever the replica
/// fails, is slow to lend a connection or cancels the query (a recovery conflict), the read
/// goes to the primary (for the next second too, after a failure). The replica's zone row and records are read in one `REPEATABLE READ`
/// snapshot, so the page is a state the primary had.
///
/// For example:
/// ```swift
/// let storage = try PostgresStorage(url: primaryURL, replicaURL: "postgres://nimbus@replica:5432/nimbus", logger: logger)
/// ```
final class PostgresReplica: Sendable {
    let client: PostgresClient
    let logger: Logger
    /// Zone positions this process knows of.
    let positions = ZonePositions()
    private let counts = NIOLockedValueBox<(reads: Int, fallbacks: Int)>((0, 0))
    /// Until when reads skip the replica after it failed, so that a replica that is down
    /// costs each read nothing instead of a connection attempt.
    private let restingUntil = NIOLockedValueBox<ContinuousClock.Instant?>(nil)

    /// How long reads skip the replica after a failure.
    static let rest: Duration = .seconds(1)

    /// How long a read waits for a replica connection before asking the primary instead.
    static let deadlines = PostgresStorage.Deadlines(lease: .milliseconds(500), operation: .seconds(3))

    /// Creates a client for the replica's URL.
    /// - Throws: `invalidArguments` for a URL that is not a PostgreSQL URL.
    init(url: String, logger: Logger) throws {
        var configuration = try PostgresURL(url).clientConfiguration
        configuration.options.maximumConnections = 16
        configuration.options.connectTimeout = .seconds(1)
        self.client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.logger = logger
    }

    /// Reads answered by the replica, and reads it left to the primary.
    var readCounts: (reads: Int, fallbacks: Int) { counts.withLockedValue { $0 } }

    /// A zone's changes from the replica, or `nil` when the primary must answer.
    /// - Parameters:
    ///   - expectedIncarnation: The incarnation the client's token names, if it has one.
    func zoneChanges(
        _ zone: ZoneKey, afterSeq: Int64, expectedIncarnation: Int64?, limit: Int, maximumBytes: Int64, storage: PostgresStorage
    ) async -> ZoneChangesPage? {
        await read(zone, storage: storage, requireKnown: false) { [logger] (connection, state) -> ZoneChangesPage? in
            if let expectedIncarnation, expectedIncarnation != state.incarnation { return nil }
            guard state.seq >= afterSeq else { return nil }
            let rows = try await connection.run(
                PostgresStorage.zoneChangesQuery(zoneRowID: state.rowID, afterSeq: afterSeq, limit: limit), logger: logger)
            var records: [StoredRecord] = []
            for try await row in rows { records.append(try PostgresStorage.storedRecord(row.makeRandomAccess())) }
            let page = ZoneChangesPage.bounded(records, limit: limit, maximumBytes: maximumBytes)
            return ZoneChangesPage(zone: state, records: page.records, moreComing: page.moreComing)
        }
    }

    /// A lookup from the replica, or `nil` when the primary must answer: a lookup carries no
    /// token, so the replica is read only for a zone whose position this process knows.
    func lookupRecords(_ zone: ZoneKey, names: [String], storage: PostgresStorage) async -> [String: StoredRecord]? {
        await read(zone, storage: storage, requireKnown: true) { [logger] (connection, state) -> [String: StoredRecord]? in
            try await PostgresStorage.records(connection, zoneRowID: state.rowID, names: names, logger: logger)
        }
    }

    /// Runs `body` in a read-only snapshot of the replica once its copy of the zone is live
    /// and as new as this process knows the zone to be; `nil` sends the read to the primary.
    private func read<Result: Sendable>(
        _ zone: ZoneKey, storage: PostgresStorage, requireKnown: Bool,
        _ body: @escaping @Sendable (PostgresConnection, ZoneState) async throws -> Result?
    ) async -> Result? {
        let known = positions.position(of: zone)
        if known?.deleted == true || (requireKnown && known == nil) { return fallBack() }
        if let until = restingUntil.withLockedValue({ $0 }), ContinuousClock.now < until { return fallBack() }
        let logger = self.logger
        do {
            let result = try await storage.connection(client: client, deadlines: Self.deadlines) { connection -> Result? in
                try await connection.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
                do {
                    var result: Result?
                    if let state = try await PostgresStorage.liveZone(connection, zone, logger: logger, lock: false),
                        known.map({ $0.incarnation == state.incarnation && $0.seq <= state.seq }) ?? true
                    {
                        result = try await body(connection, state)
                    }
                    try await connection.run("COMMIT", logger: logger)
                    return result
                } catch {
                    do {
                        try await connection.run("ROLLBACK", logger: logger)
                    } catch {
                        if !connection.isClosed { try? await connection.close() }
                    }
                    throw error
                }
            }
            guard let result else { return fallBack() }
            counts.withLockedValue { $0.reads += 1 }
            return result
        } catch {
            logger.debug("replica read failed; reading the primary", metadata: ["error": "\(error)"])
            restingUntil.withLockedValue { $0 = ContinuousClock.now + Self.rest }
            return fallBack()
        }
    }

    private func fallBack<Result>() -> Result? {
        counts.withLockedValue { $0.fallbacks += 1 }
        return nil
    }
}
