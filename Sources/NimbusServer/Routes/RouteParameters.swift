import Foundation
import Hummingbird
import NimbusWire

extension NimbusRequestContext {
    /// A path parameter, percent-decoded (`a%20b` names the zone `a b`; `%2F` decodes to a
    /// slash, which name rules then refuse) and in Unicode NFC (see ``Swift/String/nfc``).
    func pathParameter(_ name: String) throws(WireError) -> String {
        let raw = parameters.get(name) ?? ""
        guard let decoded = raw.removingPercentEncoding else {
            throw WireError(.invalidArguments, "The \(name) '\(raw)' is not valid percent-encoding.")
        }
        return decoded.nfc
    }

    /// The `?owner=` query parameter, in NFC.
    func ownerParameter(_ request: Request) -> String? {
        request.uri.queryParameters.get("owner")?.nfc
    }

    /// The zone named by the route's `container`, `database` and `zone` parameters.
    func zoneKey(_ services: ServerServices, request: Request) throws -> ZoneKey {
        try services.zone(
            container: try pathParameter("container"), scope: try pathParameter("database"),
            owner: ownerParameter(request), zoneName: try pathParameter("zone"),
            principal: try requirePrincipal())
    }

    /// The zone where the records of the route's zone live, checked for `intent` (see
    /// ``ServerServices/accessibleZone(container:scope:owner:zoneName:principal:intent:)``).
    func accessibleZoneKey(_ services: ServerServices, request: Request, intent: ZoneIntent) async throws -> ZoneKey {
        try await services.accessibleZone(
            container: try pathParameter("container"), scope: try pathParameter("database"),
            owner: ownerParameter(request), zoneName: try pathParameter("zone"),
            principal: try requirePrincipal(), intent: intent)
    }

    /// The database named by the route's `container` and `database` parameters.
    func databaseKey(_ services: ServerServices, request: Request) throws -> DatabaseKey {
        try services.database(
            container: try pathParameter("container"), scope: try pathParameter("database"),
            owner: ownerParameter(request), principal: try requirePrincipal())
    }
}

extension ZoneState {
    var changeToken: ChangeToken { ChangeTokenCodec.zoneToken(zoneIncarnation: incarnation, seq: seq) }
}
