import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

@Suite("Database change tokens beyond the server's position", .stopsServers)
struct DatabaseTokenTests {
    @Test("a database token past the current position (a restored backup, a forged token) gets changeTokenExpired", arguments: Backend.available)
    func futureToken(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        try await alice.createZone("a")
        let current = try await alice.databaseChanges()
        let position = try ChangeTokenCodec.decodeDatabase(current.changeToken)
        #expect(try await alice.databaseChanges(since: current.changeToken).changedZones.isEmpty)
        for database in ["private", "shared", "public"] {
            var client = alice
            client.database = database
            let ahead = ChangeTokenCodec.databaseToken(seq: position + 5)
            let reply = try await client.send(.POST, client.databasePath + "/changes", json: FetchDatabaseChangesRequest(since: ahead))
            #expect(reply.status == 410, "\(database): \(reply.text)")
            #expect(reply.error?.code == .changeTokenExpired, "\(database)")
        }
        // A push socket resuming from such a token is refused the same way.
        let since = ChangeTokenCodec.databaseToken(seq: position + 5).rawValue
        let push = try await RawHTTP.exchange(
            port: server.port,
            RawHTTP.upgradeRequest(path: "/v1/containers/app/databases/private/push?since=\(since)", authorization: "Bearer \(alice.token!)"))
        #expect(push.status == 410)
        #expect(push.errorCode == "changeTokenExpired")
    }
}
