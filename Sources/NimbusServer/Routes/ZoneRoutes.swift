import Hummingbird
import NimbusWire

/// `GET …/zones`, `PUT …/zones/{zone}`, `DELETE …/zones/{zone}`.
struct ZoneRoutes {
    let services: ServerServices

    func register(on group: RouterGroup<NimbusRequestContext>) {
        group.get("zones") { request, context in
            let database = try context.databaseKey(services, request: request)
            let (limit, cursor) = try Self.page(request)
            let rows = try await services.storage.listZones(database, after: cursor, limit: limit + 1)
            let page = rows.prefix(limit)
            let more = rows.count > limit
            return try JSONResponse.make(ListZonesResponse(
                zones: page.map { Zone(zoneID: ZoneID(zoneName: $0.zoneName, ownerName: $0.ownerName), changeToken: $0.changeToken) },
                moreComing: more,
                continuation: more ? page.last.map { ZoneListCursor(zoneName: $0.zoneName, ownerName: $0.ownerName ?? "").continuation } : nil))
        }
        group.put("zones/:zone") { request, context in
            let key = try context.zoneKey(services, request: request)
            let existed = try await services.storage.zone(key) != nil
            let state = try await services.storage.createZone(key, now: services.clock.now())
            return try JSONResponse.make(
                Zone(zoneID: ZoneID(zoneName: key.zoneName), changeToken: state.changeToken),
                status: existed ? .ok : .created)
        }
        group.delete("zones/:zone") { request, context in
            let key = try context.zoneKey(services, request: request)
            let event = try await services.storage.deleteZone(key, now: services.clock.now())
            return try JSONResponse.make(DeleteZoneResponse(
                zoneID: ZoneID(zoneName: key.zoneName),
                databaseChangeToken: ChangeTokenCodec.databaseToken(seq: event.databaseSeq)))
        }
    }

    /// The page a listing asks for: `?limit=` (1…``ListZonesResponse/maximumLimit``, that
    /// many by default; larger asks get the maximum) and `?continuation=`.
    static func page(_ request: Request) throws(WireError) -> (limit: Int, cursor: ZoneListCursor?) {
        let query = request.uri.queryParameters
        var limit = ListZonesResponse.maximumLimit
        if let text = query.get("limit") {
            guard let requested = Int(text), requested > 0 else {
                throw WireError(.invalidArguments, "The limit '\(text.prefix(40))' is not a positive whole number.")
            }
            limit = min(requested, ListZonesResponse.maximumLimit)
        }
        let cursor = try query.get("continuation").map { text throws(WireError) in try ZoneListCursor(continuation: text) }
        return (limit, cursor)
    }
}
