import Foundation
import NimbusWire

extension TestClient {
    /// The same device's view of its shared database; `owner` names the owner of the zones
    /// that zone routes address.
    func shared(owner: String? = nil) -> TestClient {
        var client = self
        client.database = "shared"
        client.owner = owner
        return client
    }

    /// `PUT …/zones/{zone}/share` with these participants.
    func share(_ zone: String, _ participants: [String: SharePermission]) async throws -> Reply {
        let list = participants.sorted { $0.key < $1.key }.map { ShareParticipant(userName: $0.key, permission: $0.value) }
        return try await send(.PUT, zonePath(zone) + "/share", json: SaveShareRequest(participants: list))
    }

    /// Shares and expects success.
    @discardableResult
    func shareOK(_ zone: String, _ participants: [String: SharePermission]) async throws -> ZoneShare {
        let reply = try await share(zone, participants)
        guard reply.status == 200 || reply.status == 201 else { throw HarnessError("share: \(reply.status) \(reply.text)") }
        return try reply.decode(ZoneShare.self)
    }

    /// `GET …/zones/{zone}/share`.
    func getShare(_ zone: String) async throws -> Reply {
        try await send(.GET, zonePath(zone) + "/share")
    }

    /// The zone ids of `GET …/zones`, every page followed.
    func zoneIDs(pageSize: Int? = nil) async throws -> [ZoneID] {
        var query = ListZonesQuery(limit: pageSize)
        var zones: [ZoneID] = []
        while true {
            let reply = try await send(.GET, databasePath + "/zones" + query.queryString)
            guard reply.status == 200 else { throw HarnessError("zones: \(reply.status) \(reply.text)") }
            let page = try reply.decode(ListZonesResponse.self)
            zones += page.zones.map(\.zoneID)
            guard page.moreComing, let next = page.continuation else { return zones }
            query.continuation = next
        }
    }
}
