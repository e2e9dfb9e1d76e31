import Hummingbird
import NimbusWire

/// `GET …/zones`, `PUT …/zones/{zone}`, `DELETE …/zones/{zone}`.
struct ZoneRoutes {
    let services: ServerServices

    func register(on group: RouterGroup<NimbusRequestContext>) {
        group.get("zones") { request, context in
            let database = try context.databaseKey(services, request: request)
            let zones = try await services.storage.listZones(database)
            return try JSONResponse.make(ListZonesResponse(zones: zones.map {
                Zone(zoneID: ZoneID(zoneName: $0.zoneName, ownerName: $0.ownerName), changeToken: $0.changeToken)
            }))
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
}
