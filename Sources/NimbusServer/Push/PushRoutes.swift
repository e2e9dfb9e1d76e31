import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NimbusWire

/// `GET /v1/containers/{container}/databases/{database}/push[?since=<database token>]`:
/// the WebSocket a device keeps open to hear about changes.
///
/// The upgrade is authenticated like every route. On connect the server subscribes the
/// device to its database, then (when `since` is given) sends one message per zone changed
/// or deleted after that token, so a reconnecting device resumes where it left off, then a
/// `hello` with the current database token, then one message per committed change.
struct PushRoutes {
    let services: ServerServices

    func register(on router: Router<NimbusRequestContext>) {
        let path = RouterPath("\(NimbusWire.pathPrefix)/containers/:container/databases/:database/push")
        router.ws(path) { request, context in
            do {
                let (database, since) = try await resolve(request: request, context: context)
                if let since { try await checkResumePosition(since, database: database) }
                return .upgrade([:])
            } catch {
                await PushRefusal.answer(error, request: request, context: context)
                return .dontUpgrade
            }
        } onUpgrade: { inbound, outbound, wsContext in
            // The upgrade was admitted above: its rate is not charged twice, and a token short
            // of its rate is answered 429 there, never a socket opened and closed with 1011.
            let (database, since) = try await resolve(request: wsContext.request, context: wsContext.requestContext, admitted: true)
            let authorization = wsContext.request.headers[.authorization]
            try await serve(database: database, since: since, outbound: outbound, logger: wsContext.logger) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { for try await _ in inbound {} }
                    group.addTask { try await closeWhenTokenInvalid(authorization, outbound: outbound, logger: wsContext.logger) }
                    try await group.next()
                    group.cancelAll()
                }
            }
        }
    }

    /// A resume token beyond the database's position (a restored backup, a forged token)
    /// cannot be answered: the device must refetch, as for a token past the horizon.
    private func checkResumePosition(_ since: Int64, database: DatabaseKey) async throws {
        let position = try await services.storage.databasePosition(database)
        if since > position {
            throw WireError(.changeTokenExpired, "The change token is ahead of this server's database (was it restored from a backup?). Refetch the database's zones from the start.")
        }
    }

    /// Checks the token every ``ServerConfiguration/pushAuthenticationInterval`` and, once it
    /// was revoked or expired, closes the socket (close code 1008, policy violation) and returns.
    private func closeWhenTokenInvalid(_ authorization: String?, outbound: WebSocketOutboundWriter, logger: Logger) async throws {
        while true {
            try await Task.sleep(for: services.configuration.pushAuthenticationInterval)
            do {
                try await services.authenticator.recheck(authorization)
            } catch let error as WireError where error.code == .notAuthenticated {
                logger.info("push socket closed: its token is no longer valid", metadata: ["reason": "\(error.message)"])
                try? await outbound.close(.policyViolation, reason: "notAuthenticated")
                return
            } catch {
                // The storage could not answer (an outage): keep the socket, check again later.
                logger.debug("push token check failed", metadata: ["error": "\(String(reflecting: error))"])
            }
        }
    }

    /// Authenticates the upgrade request and finds the database and resume token.
    private func resolve(request: Request, context: NimbusRequestContext, admitted: Bool = false) async throws -> (DatabaseKey, Int64?) {
        let principal = admitted
            ? try await services.authenticator.principal(request.headers[.authorization])
            : try await services.authenticator.authenticate(request.headers[.authorization], address: context.channel.remoteAddress?.ipAddress)
        let database = try services.database(
            container: try context.pathParameter("container"), scope: try context.pathParameter("database"),
            owner: context.ownerParameter(request), principal: principal)
        let since = try request.uri.queryParameters.get("since").map { text throws(WireError) in
            try ChangeTokenCodec.decodeDatabase(ChangeToken(rawValue: text))
        }
        return (database, since)
    }

    private func serve(
        database: DatabaseKey, since: Int64?, outbound: WebSocketOutboundWriter, logger: Logger,
        untilClosed: @escaping @Sendable () async throws -> Void
    ) async throws {
        let subscription = services.changeFeed.subscribe(to: database)
        services.metrics.connectedDevices.set(Double(services.changeFeed.connectedCount))
        defer {
            services.changeFeed.cancel(subscription)
            services.metrics.connectedDevices.set(Double(services.changeFeed.connectedCount))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let send: @Sendable (PushMessage) async throws -> Void = { message in
            try await outbound.write(.text(String(decoding: try encoder.encode(message), as: UTF8.self)))
            services.metrics.pushMessages.increment()
        }
        var position = since ?? 0
        if since != nil {
            var more = true
            while more {
                let page = try await services.storage.databaseChanges(database, afterSeq: position, limit: 500)
                for zone in page.zones {
                    try await send(PushMessage(
                        kind: zone.deleted ? .zoneDeleted : .zoneChanged, container: database.container,
                        database: database.scope, zoneID: ZoneID(zoneName: zone.zoneName, ownerName: zone.ownerName),
                        databaseChangeToken: ChangeTokenCodec.databaseToken(seq: zone.databaseSeq)))
                }
                position = page.databaseSeq
                more = page.moreComing
            }
        } else {
            position = try await services.storage.databasePosition(database)
        }
        try await send(PushMessage(
            kind: .hello, container: database.container, database: database.scope,
            databaseChangeToken: ChangeTokenCodec.databaseToken(seq: position)))
        let caughtUp = position
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await untilClosed() }
            group.addTask {
                for await event in subscription.events where event.databaseSeq > caughtUp {
                    try await send(PushMessage(
                        kind: event.zoneDeleted ? .zoneDeleted : .zoneChanged, container: event.container,
                        database: event.scope, zoneID: ZoneID(zoneName: event.zoneName, ownerName: event.zoneOwnerName),
                        zoneChangeToken: event.zoneDeleted ? nil : ChangeTokenCodec.zoneToken(zoneIncarnation: event.zoneIncarnation, seq: event.zoneSeq),
                        databaseChangeToken: ChangeTokenCodec.databaseToken(seq: event.databaseSeq)))
                }
            }
            try await group.next()
            group.cancelAll()
        }
        logger.debug("push connection closed")
    }
}
