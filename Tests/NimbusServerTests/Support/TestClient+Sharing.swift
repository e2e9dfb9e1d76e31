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

extension TestClient {
    /// The same user outside any database (no `?owner=`), for the share URL routes.
    var plain: TestClient {
        var client = self
        client.database = "private"
        client.owner = nil
        return client
    }

    /// `PUT …/zones/{zone}/share` with a public permission.
    func share(_ zone: String, _ participants: [String: SharePermission], public permission: SharePermission) async throws -> Reply {
        let list = participants.sorted { $0.key < $1.key }.map { ShareParticipant(userName: $0.key, permission: $0.value) }
        return try await send(.PUT, zonePath(zone) + "/share", json: SaveShareRequest(participants: list, publicPermission: permission))
    }

    /// `GET {url}`: what a share URL offers this user.
    func shareMetadata(_ url: String) async throws -> Reply {
        try await plain.send(.GET, url)
    }

    /// `POST {url}/accept`.
    func accept(_ url: String) async throws -> Reply {
        try await plain.send(.POST, url + "/accept")
    }

    /// Accepts and expects success.
    @discardableResult
    func acceptOK(_ url: String?) async throws -> ShareMetadata {
        guard let url else { throw HarnessError("accept: the share has no URL") }
        let reply = try await accept(url)
        guard reply.status == 200 else { throw HarnessError("accept: \(reply.status) \(reply.text)") }
        return try reply.decode(ShareMetadata.self)
    }

    /// `GET /v1/containers/{container}/shares`, expecting success.
    func shareList() async throws -> ShareListResponse {
        let reply = try await plain.send(.GET, "/v1/containers/\(container)/shares")
        guard reply.status == 200 else { throw HarnessError("shares: \(reply.status) \(reply.text)") }
        return try reply.decode(ShareListResponse.self)
    }

    /// Shares and has each of `accepting` accept: access as server-0009 gave it at once.
    @discardableResult
    func shareAccepted(_ zone: String, _ participants: [String: SharePermission], by accepting: [TestClient]) async throws -> ZoneShare {
        let share = try await shareOK(zone, participants)
        for client in accepting { try await client.acceptOK(share.url) }
        return share
    }
}
