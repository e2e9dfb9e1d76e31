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
                _ = try await resolve(request: request, context: context)
                return .upgrade([:])
            } catch {
                return .dontUpgrade
            }
        } onUpgrade: { inbound, outbound, wsContext in
            let (database, since) = try await resolve(request: wsContext.request, context: wsContext.requestContext)
            try await serve(database: database, since: since, outbound: outbound, logger: wsContext.logger) {
                for try await _ in inbound {}
            }
        }
    }

    /// Authenticates the upgrade request and finds the database and resume token.
    private func resolve(request: Request, context: NimbusRequestContext) async throws -> (DatabaseKey, Int64?) {
        let principal = try await services.authenticator.authenticate(request.headers[.authorization])
        let database = try services.database(
            container: try context.pathParameter("container"), scope: try context.pathParameter("database"),
            owner: request.uri.queryParameters.get("owner"), principal: principal)
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
                        zoneChangeToken: event.zoneDeleted ? nil : ChangeTokenCodec.zoneToken(zoneRowID: event.zoneRowID, seq: event.zoneSeq),
                        databaseChangeToken: ChangeTokenCodec.databaseToken(seq: event.databaseSeq)))
                }
            }
            try await group.next()
            group.cancelAll()
        }
        logger.debug("push connection closed")
    }
}
