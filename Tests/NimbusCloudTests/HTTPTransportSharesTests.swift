import Foundation
import NimbusCloud
import NimbusWire
import Testing

/// The client transport's share methods against a real server on loopback.
@Suite("HTTPTransport: shares and invitations")
struct HTTPTransportSharesTests {
    @Test("save, read, accept, list, leave and delete a share through HTTPTransport")
    func shareRoundTrip() async throws {
        let server = try await InProcessServer.start(devices: 1)
        do {
            try await roundTrip(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    private func roundTrip(_ server: InProcessServer) async throws {
        let bobToken = try await server.addUser("bob")
        let alice = HTTPTransport(options: CloudContainerOptions(serverURL: server.url, containerIdentifier: "app", token: server.tokens[0]))
        let bob = HTTPTransport(options: CloudContainerOptions(
            serverURL: server.url, containerIdentifier: "app", databaseScope: .shared, token: bobToken))
        let list = ZoneID(zoneName: "list")
        let shared = ZoneID(zoneName: "list", ownerName: "alice")
        try await alice.createZone(list)
        #expect(try await alice.fetchShare(zone: list) == nil)

        let share = try await alice.saveShare(zone: list, request: SaveShareRequest(
            participants: [ShareParticipant(userName: "bob", permission: .readWrite)]))
        let url = try #require(share.url)
        #expect(share.participants.map(\.state) == [.invited])
        #expect(try await alice.fetchShare(zone: list) == share)
        let secret = try #require(HTTPTransport.shareSecret(in: server.url.absoluteString + url))
        #expect(HTTPTransport.shareSecret(in: url) == secret)
        #expect(HTTPTransport.shareSecret(in: "https://example.com/elsewhere") == nil)
        // Not accepted yet: bob sees no share of the zone.
        #expect(try await bob.fetchShare(zone: shared) == nil)

        let offered = try await bob.shareMetadata(secret: secret)
        #expect(offered.state == .invited && offered.permission == .readWrite && offered.zoneID == shared)
        let accepted = try await bob.acceptShare(secret: secret)
        #expect(accepted.state == .accepted && accepted.shareID == share.shareID)
        let seen = try #require(try await bob.fetchShare(zone: shared))
        #expect(seen.url == nil && seen.participants.map(\.state) == [.accepted])

        let aliceList = try await alice.listShares()
        #expect(aliceList.owned.map(\.url) == [url] && aliceList.participating.isEmpty)
        let bobList = try await bob.listShares()
        #expect(bobList.owned.isEmpty && bobList.participating.map(\.zoneID) == [shared])

        try await bob.leaveShare(zone: shared)
        #expect(try await bob.fetchShare(zone: shared) == nil)
        #expect(try await alice.fetchShare(zone: list)?.participants.map(\.state) == [.left])
        try await alice.deleteShare(zone: list)
        #expect(try await alice.fetchShare(zone: list) == nil)
        await #expect(throws: CloudError.self) { try await bob.acceptShare(secret: secret) }
        do {
            _ = try await bob.shareMetadata(secret: secret)
            Issue.record("an ended share's URL still answered")
        } catch let error as CloudError {
            #expect(error.wireError?.code == .unknownItem)
        }
        await #expect(throws: CloudError.self) { try await bob.leaveShare(zone: ZoneID(zoneName: "list")) }
    }
}
