import Hummingbird
import NimbusWire

extension NimbusRequestContext {
    /// The zone named by the route's `container`, `database` and `zone` parameters.
    func zoneKey(_ services: ServerServices, request: Request) throws -> ZoneKey {
        try services.zone(
            container: parameters.get("container") ?? "", scope: parameters.get("database") ?? "",
            owner: request.uri.queryParameters.get("owner"), zoneName: parameters.get("zone") ?? "",
            principal: try requirePrincipal())
    }

    /// The database named by the route's `container` and `database` parameters.
    func databaseKey(_ services: ServerServices, request: Request) throws -> DatabaseKey {
        try services.database(
            container: parameters.get("container") ?? "", scope: parameters.get("database") ?? "",
            owner: request.uri.queryParameters.get("owner"), principal: try requirePrincipal())
    }
}

extension ZoneState {
    var changeToken: ChangeToken { ChangeTokenCodec.zoneToken(zoneRowID: rowID, seq: seq) }
}
