import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

@Suite("Sharing: schema migration", .stopsServers)
struct ShareMigrationTests {
    @Test("a SQLite data folder from before sharing migrates at start-up and its zones can be shared")
    func sqliteV1Upgrades() async throws {
        let directory = NSTemporaryDirectory() + "nimbus-v1-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            let storage = try SQLiteStorage(path: directory + "/nimbus.sqlite")
            try SQLiteSchema.migrator.migrate(storage.pool, upTo: "v1")
            try await storage.pool.write { db in
                try db.execute(sql: "INSERT INTO users(name, created_at) VALUES ('alice', 0)")
                try db.execute(sql: "INSERT INTO zones(container, scope, owner_id, name, db_seq, created_at) VALUES ('app', 'private', 1, 'trip', 1, 0)")
                try db.execute(sql: "INSERT INTO databases(container, scope, owner_id, seq) VALUES ('app', 'private', 1, 1)")
            }
        }
        let server = try await TestServer.start(.sqlite, dataDirectory: directory)
        let alice = try await server.user("alice")
        let bob = try await server.user("bob")
        #expect(try await alice.zoneIDs() == [ZoneID(zoneName: "trip")])
        try await alice.save("trip", [Make.record("day1", ["title": .string("Lisbon")])])
        try await alice.shareAccepted("trip", ["bob": .readOnly], by: [bob])
        #expect(try await bob.shared().zoneIDs() == [ZoneID(zoneName: "trip", ownerName: "alice")])
        #expect(try await bob.shared(owner: "alice").lookup("trip", ["day1"]).results[0].record != nil)
    }
}
