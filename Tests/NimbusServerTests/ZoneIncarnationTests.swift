import Foundation
import GRDB
@testable import NimbusServer
import NimbusWire
import Testing

/// Change tokens and change tags name a zone by a random incarnation, so they tell nothing
/// about how many zones other users made (decision server-0018); tokens issued before keep
/// working.
@Suite("Zone incarnations in tokens", .stopsServers)
struct ZoneIncarnationTests {
    /// The incarnation a zone token carries.
    static func incarnation(_ token: ChangeToken) throws -> Int64 {
        try ChangeTokenCodec.decodeZone(token).zoneIncarnation
    }

    @Test("tokens and change tags of two zones made around 50 of another user's do not count them", arguments: Backend.available)
    func noCount(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        let bob = try await server.user("bob")
        let first = try await alice.createZone("first")
        for index in 0..<50 { try await bob.createZone("bob\(index)") }
        let second = try await alice.createZone("second")
        let (a, b) = (try Self.incarnation(first.changeToken), try Self.incarnation(second.changeToken))
        // Row ids would differ by 51; random 63-bit incarnations differ by more than a million
        // with probability 1 - 2e-13.
        #expect((b &- a).magnitude > 1_000_000, "incarnations \(a) and \(b)")
        let saved = try await alice.save("second", [Make.record("r1", ["title": .string("x")])])
        let tag = try #require(saved.results.first?.record?.changeTag)
        #expect(tag.hasPrefix(String(try Self.incarnation(second.changeToken), radix: 36) + "-"), "\(tag)")
        let listed = try await alice.send(.GET, alice.databasePath + "/zones").decode(ListZonesResponse.self)
        let listedTokens = Set(try listed.zones.map { try Self.incarnation($0.changeToken) })
        #expect(listedTokens == [try Self.incarnation(first.changeToken), try Self.incarnation(second.changeToken)])
        // A zone deleted and created again is a new incarnation: its old token gets 410.
        let before = try await alice.fetchChanges("second")
        #expect(try await alice.send(.DELETE, alice.zonePath("second")).status == 200)
        let again = try await alice.createZone("second")
        #expect(try Self.incarnation(again.changeToken) != Self.incarnation(second.changeToken))
        let expired = try await alice.changes("second", since: before.changeToken)
        #expect(expired.status == 410 && expired.error?.code == .changeTokenExpired, "\(expired.text)")
    }

    @Test("a token issued before the upgrade (zone row id inside) keeps working after it; guessed row ids get 410")
    func tokensFromBefore() async throws {
        let directory = NSTemporaryDirectory() + "nimbus-incarnation-\(UUID().uuidString)"
        let server = try await TestServer.start(.sqlite, dataDirectory: directory)
        let alice = try await server.user("alice")
        try await alice.createZone("notes")
        try await alice.save("notes", [Make.record("r1", ["title": .string("one")])])
        await server.stop()
        // Put the file back where a server before decision server-0018 left it.
        let rowID = try await DatabaseQueue(path: directory + "/nimbus.sqlite").write { db in
            try db.execute(sql: "ALTER TABLE zones DROP COLUMN incarnation; DELETE FROM grdb_migrations WHERE identifier = 'v4-zone-incarnations'")
            return try #require(try Int64.fetchOne(db, sql: "SELECT id FROM zones WHERE name = 'notes'"))
        }
        let restarted = try await TestServer.start(.sqlite, dataDirectory: directory)
        let alice2 = try await restarted.user("alice")
        let old = ChangeTokenCodec.zoneToken(zoneIncarnation: rowID, seq: 1)
        try await alice2.save("notes", [Make.record("r2", ["title": .string("two")])])
        let page = try await alice2.fetchChanges("notes", since: old)
        #expect(page.records.map(\.recordName) == ["r2"])
        let guessed = try await alice2.changes("notes", since: ChangeTokenCodec.zoneToken(zoneIncarnation: rowID + 1, seq: 1))
        #expect(guessed.status == 410 && guessed.error?.code == .changeTokenExpired, "\(guessed.text)")
        // A zone made after the upgrade is not named by its row id.
        let fresh = try await alice2.createZone("fresh")
        #expect(try Self.incarnation(fresh.changeToken) != rowID + 1)
    }
}
