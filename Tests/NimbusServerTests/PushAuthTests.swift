import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

@Suite("Push: refused upgrades and tokens that stop being valid", .stopsServers)
struct PushAuthTests {
    static let path = "/v1/containers/app/databases/private/push"

    @Test("a refused upgrade answers 401 with the JSON error, for a missing, forged or non-bearer token", arguments: [
        nil, "Bearer nmb_forged", "Basic YWxpY2U6c2VjcmV0",
    ])
    func refusedUpgrade(_ authorization: String?) async throws {
        let server = try await TestServer.start(.sqlite)
        let reply = try await RawHTTP.exchange(port: server.port, RawHTTP.upgradeRequest(path: Self.path, authorization: authorization))
        #expect(reply.status == 401, "\(String(decoding: reply.body, as: UTF8.self))")
        #expect(reply.headers["content-type"]?.hasPrefix("application/json") == true)
        #expect(reply.errorCode == "notAuthenticated")
    }

    @Test("an upgrade with a valid token but a bad database answers 400 JSON; a good one switches protocols")
    func otherRefusals() async throws {
        let server = try await TestServer.start(.sqlite)
        let alice = try await server.user("alice")
        let bad = try await RawHTTP.exchange(
            port: server.port, RawHTTP.upgradeRequest(path: "/v1/containers/app/databases/secret/push", authorization: "Bearer \(alice.token!)"))
        #expect(bad.status == 400)
        #expect(bad.errorCode == "invalidArguments")
        let good = try await RawHTTP.exchange(port: server.port, RawHTTP.upgradeRequest(path: Self.path, authorization: "Bearer \(alice.token!)"))
        #expect(good.status == 101)
    }

    @Test("a push upgrade costs one request of the token's rate: with one left the socket opens and stays; with none, 429")
    func upgradeChargedOnce() async throws {
        let server = try await TestServer.start(.sqlite) {
            $0.rateLimitBurst = 1
            $0.rateLimitPerSecond = 0.01
        }
        let alice = try await server.user("alice")
        let push = PushListener.connect(url: "ws://127.0.0.1:\(server.port)\(Self.path)", token: alice.token!)
        defer { push.close() }
        #expect(await push.next(within: .seconds(30))?.kind == .hello, "the socket was closed after its upgrade (1011)")
        #expect(!push.isClosed)
        let refused = try await RawHTTP.exchange(port: server.port, RawHTTP.upgradeRequest(path: Self.path, authorization: "Bearer \(alice.token!)"))
        #expect(refused.status == 429)
        #expect(refused.errorCode == "requestRateLimited")
    }

    @Test("a revoked token's push socket is closed and hears no later change")
    func revokedTokenLosesSocket() async throws {
        let server = try await TestServer.start(.sqlite) { $0.pushAuthenticationInterval = .milliseconds(100) }
        let phone = try await server.user("alice", device: "phone")
        let laptop = try await server.user("alice", device: "laptop")
        try await phone.createZone("notes")
        let push = PushListener.connect(url: "ws://127.0.0.1:\(server.port)\(Self.path)", token: laptop.token!)
        defer { push.close() }
        #expect(await push.next(within: .seconds(30))?.kind == .hello)
        let user = try #require(try await server.storage.user(named: "alice"))
        #expect(try await server.storage.revokeTokens(userID: user.id, device: "laptop") == 1)
        // The server checks every 100 ms; a loaded machine (parallel tests) may take seconds.
        #expect(await push.next(within: .seconds(15)) == nil)
        try await phone.save("notes", [Make.record("r", ["t": .string("after revocation")])])
        #expect(await push.next(within: .seconds(3)) == nil)
        #expect(push.isClosed)
    }

    @Test("an expired token's push socket is closed")
    func expiredTokenLosesSocket() async throws {
        let clock = ManualClock(start: 1_700_000_000_000)
        let server = try await TestServer.start(.sqlite, clock: clock.clock) { $0.pushAuthenticationInterval = .milliseconds(100) }
        let admin = AccountAdmin(storage: server.storage, clock: clock.clock)
        _ = try await admin.addUser(name: "alice")
        let token = try await admin.createToken(userName: "alice", device: "phone", expiresInSeconds: 60)
        let push = PushListener.connect(url: "ws://127.0.0.1:\(server.port)\(Self.path)", token: token)
        defer { push.close() }
        #expect(await push.next(within: .seconds(30))?.kind == .hello)
        try await Task.sleep(for: .milliseconds(300))
        #expect(!push.isClosed)
        clock.advance(by: 61_000)
        // The server checks every 100 ms; a loaded machine (parallel tests) may take seconds.
        #expect(await push.next(within: .seconds(15)) == nil)
        #expect(push.isClosed)
    }
}
