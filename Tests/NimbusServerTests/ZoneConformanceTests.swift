import Foundation
import NimbusWire
import Testing

/// The conformance suite, part 1: zones. Every test runs on each available backend.
@Suite("Zones (conformance)", .stopsServers)
struct ZoneConformanceTests {
    @Test("creating a zone twice returns the same zone, listing shows it once", arguments: Backend.available)
    func createIsIdempotent(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        let first = try await alice.send(.PUT, alice.zonePath("notes"))
        let second = try await alice.send(.PUT, alice.zonePath("notes"))
        #expect(first.status == 201)
        #expect(second.status == 200)
        #expect(try first.decode(Zone.self) == second.decode(Zone.self))
        try await alice.createZone("archive")
        let list = try await alice.send(.GET, alice.databasePath + "/zones").decode(ListZonesResponse.self)
        #expect(list.zones.map(\.zoneID.zoneName) == ["archive", "notes"])
    }

    @Test("deleting a zone deletes its records and reports it in database changes", arguments: Backend.available)
    func deleteZone(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        try await alice.createZone("notes")
        let before = try await alice.databaseChanges()
        try await alice.save("notes", [Make.record("r1", ["title": .string("x")])])
        let deleted = try await alice.send(.DELETE, alice.zonePath("notes"))
        #expect(deleted.status == 200)
        let missing = try await alice.changes("notes")
        #expect(missing.status == 404)
        #expect(missing.error?.code == .zoneNotFound)
        let changes = try await alice.databaseChanges(since: before.changeToken)
        #expect(changes.deletedZones == [ZoneID(zoneName: "notes")])
        #expect(changes.changedZones.isEmpty)
        // A zone created again under the same name starts empty.
        try await alice.createZone("notes")
        #expect(try await alice.fetchChanges("notes").records.isEmpty)
        let again = try await alice.send(.DELETE, alice.zonePath("nope"))
        #expect(again.error?.code == .zoneNotFound)
    }

    @Test("database changes list only the zones changed since the token, in pages", arguments: Backend.available)
    func databaseChanges(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        for name in ["a", "b", "c"] { try await alice.createZone(name) }
        let all = try await alice.databaseChanges()
        #expect(Set(all.changedZones.map(\.zoneName)) == ["a", "b", "c"])
        #expect(!all.moreComing)
        try await alice.save("b", [Make.record("r1", ["n": .int64(1)])])
        let since = try await alice.databaseChanges(since: all.changeToken)
        #expect(since.changedZones == [ZoneID(zoneName: "b")])
        let none = try await alice.databaseChanges(since: since.changeToken)
        #expect(none.changedZones.isEmpty && none.deletedZones.isEmpty)
        // Paging: one zone per page.
        var token: ChangeToken? = nil
        var seen: [String] = []
        var pages = 0
        repeat {
            let page = try await alice.databaseChanges(since: token, limit: 1)
            seen += page.changedZones.map(\.zoneName)
            token = page.changeToken
            pages += 1
            if !page.moreComing { break }
        } while pages < 10
        #expect(Set(seen) == ["a", "b", "c"])
        #expect(seen.count == 3)
    }

    @Test("a token from a deleted incarnation of a zone is expired", arguments: Backend.available)
    func tokenFromOldIncarnation(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        try await alice.createZone("z")
        let saved = try await alice.save("z", [Make.record("r1", ["n": .int64(1)])])
        _ = try await alice.send(.DELETE, alice.zonePath("z"))
        try await alice.createZone("z")
        let reply = try await alice.changes("z", since: saved.changeToken)
        #expect(reply.status == 410)
        #expect(reply.error?.code == .changeTokenExpired)
    }
}
