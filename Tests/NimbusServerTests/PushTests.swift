import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

@Suite("Push over WebSocket", .stopsServers)
struct PushTests {
    static func pushURL(_ server: TestServer, database: String = "private", since: ChangeToken? = nil) -> String {
        "ws://127.0.0.1:\(server.port)/v1/containers/app/databases/\(database)/push" + (since.map { "?since=\($0.rawValue)" } ?? "")
    }

    @Test("after a committed change every device of the user hears which zone changed and where", arguments: Backend.available)
    func notifiesDevices(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let phone = try await server.user("alice", device: "phone")
        let laptop = try await server.user("alice", device: "laptop")
        let bob = try await server.user("bob")
        try await phone.createZone("notes")
        let laptopPush = PushListener.connect(url: Self.pushURL(server), token: laptop.token!)
        let bobPush = PushListener.connect(url: Self.pushURL(server), token: bob.token!)
        defer { laptopPush.close(); bobPush.close() }
        #expect(await laptopPush.next(within: .seconds(10))?.kind == .hello)
        #expect(await bobPush.next(within: .seconds(10))?.kind == .hello)
        let saved = try await phone.save("notes", [Make.record("r1", ["t": .string("x")])])
        let message = try #require(await laptopPush.next(within: .seconds(10)))
        #expect(message.kind == .zoneChanged)
        #expect(message.zoneID == ZoneID(zoneName: "notes"))
        #expect(message.zoneChangeToken == saved.changeToken)
        // The token in the message fetches nothing new: the device is caught up.
        #expect(try await laptop.fetchChanges("notes", since: message.zoneChangeToken).records.isEmpty)
        _ = try await phone.send(.DELETE, phone.zonePath("notes"))
        #expect(await laptopPush.next(within: .seconds(10))?.kind == .zoneDeleted)
        // Bob heard nothing of Alice's database.
        #expect(await bobPush.next(within: .milliseconds(300)) == nil)
    }

    @Test("a reconnecting device resumes from its database token and hears what it missed", arguments: Backend.available)
    func resume(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let phone = try await server.user("alice", device: "phone")
        let laptop = try await server.user("alice", device: "laptop")
        try await phone.createZone("a")
        try await phone.createZone("b")
        let first = PushListener.connect(url: Self.pushURL(server), token: laptop.token!)
        let hello = try #require(await first.next(within: .seconds(10)))
        first.close()
        try await phone.save("b", [Make.record("r", ["t": .string("while away")])])
        let again = PushListener.connect(url: Self.pushURL(server, since: hello.databaseChangeToken), token: laptop.token!)
        defer { again.close() }
        let missed = try #require(await again.next(within: .seconds(10)))
        #expect(missed.kind == .zoneChanged)
        #expect(missed.zoneID == ZoneID(zoneName: "b"))
        #expect(await again.next(within: .seconds(10))?.kind == .hello)
        try await phone.save("a", [Make.record("r", ["t": .string("live")])])
        #expect(await again.next(within: .seconds(10))?.zoneID == ZoneID(zoneName: "a"))
    }

    @Test("a push socket without a valid token is refused")
    func unauthenticated() async throws {
        let server = try await TestServer.start(.sqlite)
        let listener = PushListener.connect(url: Self.pushURL(server), token: "nmb_forged")
        #expect(await listener.next(within: .seconds(3)) == nil)
    }

    @Test("with PostgreSQL, a change written through one server reaches devices connected to another",
          .enabled(if: PostgresHarness.enabled))
    func crossProcessFanOut() async throws {
        let url = try PostgresHarness.cluster().createDatabase()
        let first = try await TestServer.start(.postgres, postgresURL: url)
        let second = try await TestServer.start(.postgres, postgresURL: url)
        let phone = try await first.user("alice", device: "phone")
        var laptop = try await second.user("alice", device: "laptop")
        laptop.baseURL = second.baseURL
        try await phone.createZone("notes")
        let push = PushListener.connect(url: Self.pushURL(second), token: laptop.token!)
        defer { push.close() }
        #expect(await push.next(within: .seconds(10))?.kind == .hello)
        let saved = try await phone.save("notes", [Make.record("r", ["t": .string("via server one")])])
        let message = try #require(await push.next(within: .seconds(10)))
        #expect(message.zoneChangeToken == saved.changeToken)
        #expect(try await laptop.lookup("notes", ["r"]).results[0].record?.fields["t"]?.value == .string("via server one"))
    }
}
