import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

/// Zone listings come in bounded pages that continue where the last one stopped
/// (decision server-0017). Every test runs on each available backend.
@Suite("Zone listing pages", .stopsServers)
struct ZoneListingTests {
    /// Creates `count` zones named `z00000…` for `user` straight in storage (thousands of
    /// PUTs would only measure HTTP).
    static func createZones(_ server: TestServer, user: String, count: Int, prefix: String = "z") async throws -> [String] {
        let owner = try #require(try await server.storage.user(named: user))
        let database = DatabaseKey(container: "app", scope: .private, ownerID: owner.id)
        let names = (0..<count).map { prefix + String(format: "%05d", $0) }
        for name in names.shuffled() {
            _ = try await server.storage.createZone(ZoneKey(database: database, zoneName: name), now: 1)
        }
        return names
    }

    @Test("a listing gives at most 1000 zones a page, and the pages together give each zone once, in order", arguments: Backend.available)
    func pages(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        let names = try await Self.createZones(server, user: "alice", count: 2_345)
        let first = try await alice.send(.GET, alice.databasePath + "/zones").decode(ListZonesResponse.self)
        #expect(first.zones.count == ListZonesResponse.maximumLimit)
        #expect(first.moreComing && first.continuation != nil)
        let asked = try await alice.send(.GET, alice.databasePath + "/zones?limit=100000").decode(ListZonesResponse.self)
        #expect(asked.zones.count == ListZonesResponse.maximumLimit)
        #expect(try await alice.zoneIDs().map(\.zoneName) == names)
        // Small pages, including one ending exactly at the last zone.
        #expect(try await alice.zoneIDs(pageSize: 7).map(\.zoneName) == names)
        #expect(try await alice.zoneIDs(pageSize: 2_345).map(\.zoneName) == names)
        let next = try #require(first.continuation)
        let last = try await alice.send(.GET, alice.databasePath + "/zones?limit=1000&continuation=" + next)
            .decode(ListZonesResponse.self)
        #expect(last.zones.first?.zoneID.zoneName == names[1000])
    }

    @Test("a zone created or deleted between pages neither repeats nor hides the others", arguments: Backend.available)
    func changesBetweenPages(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        for name in ["b", "d", "f", "h"] { try await alice.createZone(name) }
        let first = try await alice.send(.GET, alice.databasePath + "/zones?limit=2").decode(ListZonesResponse.self)
        #expect(first.zones.map(\.zoneID.zoneName) == ["b", "d"])
        try await alice.createZone("a")
        try await alice.createZone("e")
        #expect(try await alice.send(.DELETE, alice.zonePath("d")).status == 200)
        let next = try #require(first.continuation)
        let rest = try await alice.send(.GET, alice.databasePath + "/zones?continuation=" + next)
            .decode(ListZonesResponse.self)
        #expect(rest.zones.map(\.zoneID.zoneName) == ["e", "f", "h"])
        #expect(!rest.moreComing && rest.continuation == nil)
    }

    @Test("the shared database pages by zone name, then owner", arguments: Backend.available)
    func sharedPages(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        let carol = try await server.user("carol")
        let bob = try await server.user("bob")
        for owner in [alice, carol] {
            for name in ["trip", "notes", "zoo"] {
                try await owner.createZone(name)
                let share = try await owner.shareOK(name, ["bob": .readOnly])
                _ = try await bob.acceptOK(share.url)   // (access starts once accepted: server-0025)
            }
        }
        let expected = [("notes", "alice"), ("notes", "carol"), ("trip", "alice"), ("trip", "carol"), ("zoo", "alice"), ("zoo", "carol")]
            .map { ZoneID(zoneName: $0.0, ownerName: $0.1) }
        #expect(try await bob.shared().zoneIDs() == expected)
        let page = try await bob.shared().send(.GET, bob.shared().databasePath + "/zones?limit=4").decode(ListZonesResponse.self)
        #expect(page.zones.map(\.zoneID) == Array(expected.prefix(4)) && page.moreComing)
        for size in 1...5 { #expect(try await bob.shared().zoneIDs(pageSize: size) == expected, "page size \(size)") }
    }

    @Test("a bad limit or continuation is refused with 400 and a message", arguments: Backend.available)
    func badPages(_ backend: Backend) async throws {
        let server = try await TestServer.start(backend)
        let alice = try await server.user("alice")
        try await alice.createZone("notes")
        let garbage = Data("l1.x.y".utf8).base64EncodedString()
        for query in ["limit=0", "limit=-3", "limit=ten", "limit=99999999999999999999", "continuation=%25%25", "continuation=" + garbage,
                      "continuation=" + String(repeating: "A", count: 5000), "continuation="] {
            let reply = try await alice.send(.GET, alice.databasePath + "/zones?" + query)
            #expect(reply.status == 400, "\(query)")
            #expect(reply.error?.code == .invalidArguments, "\(query)")
        }
        #expect(try await alice.zoneIDs() == [ZoneID(zoneName: "notes")])
    }
}
