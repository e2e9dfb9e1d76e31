import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

@Suite("Authentication, isolation and rate limits", .stopsServers)
struct AuthTests {
    @Test("requests without a valid token get notAuthenticated")
    func missingOrForged() async throws {
        let server = try await TestServer.start(.sqlite)
        let alice = try await server.user("alice")
        var anonymous = alice
        anonymous.token = nil
        var forged = alice
        forged.token = "nmb_" + String(alice.token!.dropFirst(4).reversed())
        var garbage = alice
        garbage.token = "not-a-token"
        for client in [anonymous, forged, garbage] {
            let reply = try await client.send(.GET, client.databasePath + "/zones")
            #expect(reply.status == 401)
            #expect(reply.error?.code == .notAuthenticated)
        }
        #expect(try await alice.send(.GET, alice.databasePath + "/zones").status == 200)
    }

    @Test("the Bearer scheme is accepted in any case", arguments: ["bearer", "BEARER", "bEaReR"])
    func schemeCaseInsensitive(_ scheme: String) async throws {
        let server = try await TestServer.start(.sqlite)
        var alice = try await server.user("alice")
        let token = try #require(alice.token)
        alice.token = nil
        let reply = try await alice.send(.GET, alice.databasePath + "/zones", headers: [("Authorization", "\(scheme)  \(token)")])
        #expect(reply.status == 200, "\(reply.text)")
    }

    @Test("tokens are stored only as SHA-256 digests")
    func hashedAtRest() async throws {
        let server = try await TestServer.start(.sqlite)
        let alice = try await server.user("alice")
        let token = try #require(alice.token)
        let file = try Data(contentsOf: URL(fileURLWithPath: server.dataDirectory + "/nimbus.sqlite"))
        let wal = (try? Data(contentsOf: URL(fileURLWithPath: server.dataDirectory + "/nimbus.sqlite-wal"))) ?? Data()
        #expect(file.range(of: Data(token.utf8)) == nil && wal.range(of: Data(token.utf8)) == nil)
        #expect(try await server.storage.token(hash: TokenHasher.digest(token)) != nil)
    }

    @Test("an expired or revoked token is refused")
    func expiredAndRevoked() async throws {
        let clock = ManualClock(start: 1_700_000_000_000)
        let server = try await TestServer.start(.sqlite, clock: clock.clock)
        let admin = AccountAdmin(storage: server.storage, clock: clock.clock)
        _ = try await admin.addUser(name: "alice")
        let shortLived = try await admin.createToken(userName: "alice", device: "phone", expiresInSeconds: 60)
        let client = TestClient(baseURL: server.baseURL, token: shortLived, container: "app")
        #expect(try await client.send(.GET, client.databasePath + "/zones").status == 200)
        clock.advance(by: 61_000)
        let expired = try await client.send(.GET, client.databasePath + "/zones")
        #expect(expired.status == 401)
        #expect(expired.error?.message.contains("expired") == true)
        let laptop = try await server.user("alice", device: "laptop")
        let user = try #require(try await server.storage.user(named: "alice"))
        #expect(try await server.storage.revokeTokens(userID: user.id, device: "laptop") == 1)
        #expect(try await laptop.send(.GET, laptop.databasePath + "/zones").error?.code == .notAuthenticated)
    }

    @Test("a user reaches only their own private database")
    func isolation() async throws {
        let server = try await TestServer.start(.sqlite)
        let alice = try await server.user("alice")
        let bob = try await server.user("bob")
        try await alice.createZone("diary")
        try await alice.save("diary", [Make.record("secret", ["t": .string("mine")])])
        let bobsView = try await bob.send(.GET, bob.databasePath + "/zones").decode(ListZonesResponse.self)
        #expect(bobsView.zones.isEmpty)
        #expect(try await bob.changes("diary").error?.code == .zoneNotFound)
        let explicit = try await bob.send(.POST, bob.zonePath("diary") + "/changes?owner=alice", body: Data("{}".utf8))
        #expect(explicit.status == 403)
        #expect(explicit.error?.code == .permissionFailure)
        // The public database is shared by everyone.
        var alicePublic = alice
        alicePublic.database = "public"
        var bobPublic = bob
        bobPublic.database = "public"
        try await alicePublic.createZone("board")
        try await alicePublic.save("board", [Make.record("hello", ["t": .string("hi all")])])
        #expect(try await bobPublic.lookup("board", ["hello"]).results[0].record != nil)
    }

    @Test("a token over its rate gets requestRateLimited with retryAfter")
    func rateLimit() async throws {
        let clock = ManualClock(start: 1_700_000_000_000)
        let server = try await TestServer.start(.sqlite, clock: clock.clock) {
            $0.rateLimitBurst = 3
            $0.rateLimitPerSecond = 1
        }
        let alice = try await server.user("alice")
        let bob = try await server.user("bob")
        for _ in 0..<3 { #expect(try await alice.send(.GET, alice.databasePath + "/zones").status == 200) }
        let limited = try await alice.send(.GET, alice.databasePath + "/zones")
        #expect(limited.status == 429)
        #expect(limited.error?.code == .requestRateLimited)
        #expect((limited.error?.retryAfter ?? 0) > 0)
        #expect(limited.headers.first(name: "Retry-After") == "1")
        #expect(try await bob.send(.GET, bob.databasePath + "/zones").status == 200)
        clock.advance(by: 1_000)
        #expect(try await alice.send(.GET, alice.databasePath + "/zones").status == 200)
    }
}

@Suite("Who a token belongs to", .stopsServers)
struct AccountRouteTests {
    @Test("GET …/account names the token's user and device; without a token it is 401")
    func account() async throws {
        let server = try await TestServer.start(.sqlite)
        let phone = try await server.user("alice", device: "phone")
        let reply = try await phone.send(.GET, "/v1/containers/app/account")
        #expect(reply.status == 200)
        let account = try reply.decode(AccountResponse.self)
        #expect(account == AccountResponse(userName: "alice", deviceID: "phone"))
        let anonymous = TestClient(baseURL: server.baseURL, token: nil, container: "app")
        #expect(try await anonymous.send(.GET, "/v1/containers/app/account").status == 401)
    }
}
