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

    @Test("shares from before invitations migrate: participants keep access as accepted, the share gets an id and a URL")
    func sqliteV3Upgrades() async throws {
        let directory = NSTemporaryDirectory() + "nimbus-v3-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        do {
            let storage = try SQLiteStorage(path: directory + "/nimbus.sqlite")
            try SQLiteSchema.migrator.migrate(storage.pool, upTo: "v3-share-horizon")
            try await storage.pool.write { db in
                try db.execute(sql: "INSERT INTO users(name, created_at) VALUES ('alice', 0), ('bob', 0), ('carol', 0)")
                try db.execute(sql: """
                    INSERT INTO zones(container, scope, owner_id, name, db_seq, created_at, shared) VALUES ('app', 'private', 1, 'trip', 1, 0, 1);
                    INSERT INTO databases(container, scope, owner_id, seq) VALUES ('app', 'private', 1, 1), ('app', 'shared', 2, 1), ('app', 'shared', 3, 2);
                    INSERT INTO shares(zone_id, public_permission, created_at, modified_at) VALUES (1, 'none', 0, 0);
                    INSERT INTO share_participants(zone_id, user_id, container, permission, removed, db_seq, added_at) VALUES (1, 2, 'app', 'readWrite', 0, 1, 0);
                    INSERT INTO share_participants(zone_id, user_id, container, permission, removed, db_seq, added_at, removed_at) VALUES (1, 3, 'app', 'readOnly', 1, 2, 0, 0);
                    """)
            }
        }
        try await Self.checkUpgradedShare(try await TestServer.start(.sqlite, dataDirectory: directory))
    }

    @Test("PostgreSQL: shares from before invitations migrate (migration 5) as on SQLite", .enabled(if: PostgresHarness.enabled))
    func postgresV4Upgrades() async throws {
        let url = try PostgresHarness.cluster().createDatabase()
        let cluster = try PostgresHarness.cluster()
        var sql = "CREATE TABLE nimbus_schema(version INT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now());\n"
        for migration in PostgresSchema.migrations where migration.version <= 4 {
            sql += migration.statements.joined(separator: ";\n") + ";\nINSERT INTO nimbus_schema(version) VALUES (\(migration.version));\n"
        }
        sql += """
            INSERT INTO users(name, created_at) VALUES ('alice', 0), ('bob', 0), ('carol', 0);
            INSERT INTO zones(container, scope, owner_id, name, db_seq, created_at, shared) VALUES ('app', 'private', 1, 'trip', 1, 0, true);
            INSERT INTO databases(container, scope, owner_id, seq) VALUES ('app', 'private', 1, 1), ('app', 'shared', 2, 1), ('app', 'shared', 3, 2);
            INSERT INTO shares(zone_id, public_permission, created_at, modified_at) VALUES (1, 'none', 0, 0);
            INSERT INTO share_participants(zone_id, user_id, container, permission, removed, db_seq, added_at) VALUES (1, 2, 'app', 'readWrite', false, 1, 0);
            INSERT INTO share_participants(zone_id, user_id, container, permission, removed, db_seq, added_at, removed_at) VALUES (1, 3, 'app', 'readOnly', true, 2, 0, 0);
            """
        let file = NSTemporaryDirectory() + "nimbus-pg-v4-\(UUID().uuidString).sql"
        try sql.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        try PostgresHarness.run(PostgresHarness.binDirectory + "/psql", [
            "-h", "127.0.0.1", "-p", String(cluster.port), "-U", "postgres", "-d", String(url.split(separator: "/").last ?? ""),
            "-v", "ON_ERROR_STOP=1", "-q", "-f", file,
        ])
        try await Self.checkUpgradedShare(try await TestServer.start(.postgres, postgresURL: url))
    }

    /// alice's zone "trip" was shared with bob (access) and carol (removed) before invitations.
    static func checkUpgradedShare(_ server: TestServer) async throws {
        let alice = try await server.user("alice")
        let bob = try await server.user("bob")
        let carol = try await server.user("carol")
        let share = try await alice.getShare("trip").decode(ZoneShare.self)
        #expect(share.participants == [
            ShareParticipant(userName: "bob", permission: .readWrite, state: .accepted, isPublic: false),
            ShareParticipant(userName: "carol", permission: .readOnly, state: .removed, isPublic: false),
        ])
        let url = try #require(share.url)
        #expect(share.shareID != nil)
        #expect(url.count == "/v1/shares/".count + ShareSecrets.secretLength && ShareSecrets.isWellFormed(String(url.dropFirst("/v1/shares/".count))))
        #expect(try await bob.shared().zoneIDs() == [ZoneID(zoneName: "trip", ownerName: "alice")])
        #expect(try await bob.shareMetadata(url).decode(ShareMetadata.self).state == .accepted)
        #expect(try await carol.accept(url).error?.code == .unknownItem)
    }
}
