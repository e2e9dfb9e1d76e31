import Foundation
import GRDB
@testable import NimbusServer
import NimbusWire
import Testing

/// A row holding a value of the wrong type (hand-edited, restored from elsewhere, damaged)
/// fails the requests that read it, with the table and column named, and never stops the
/// server: other users go on being served.
@Suite("An undecodable row fails its request, not the server", .stopsServers)
struct UndecodableRowTests {
    /// The damages of issue 27: an SQL update applied to alice's rows, and the column it breaks.
    static let damages: [(sql: String, table: String, column: String)] = [
        ("UPDATE tokens SET expires_at = 'soon' WHERE device = 'alice-device'", "tokens", "expires_at"),
        ("UPDATE tokens SET expires_at = 1e300 WHERE device = 'alice-device'", "tokens", "expires_at"),
        ("UPDATE tokens SET expires_at = x'00ff' WHERE device = 'alice-device'", "tokens", "expires_at"),
        ("UPDATE tokens SET revoked = 'yes' WHERE device = 'alice-device'", "tokens", "revoked"),
        ("UPDATE tokens SET device = x'ff00fe' WHERE device = 'alice-device'", "tokens", "device"),
        ("UPDATE users SET used_bytes = 'lots' WHERE name = 'alice'", "users", "used_bytes"),
    ]

    @Test("alice's damaged row fails her requests with internalError; bob is served; the error names table and column", arguments: 0..<damages.count)
    func damagedRow(_ index: Int) async throws {
        let damage = Self.damages[index]
        let server = try await TestServer.start(.sqlite)
        let alice = try await server.user("alice")
        let bob = try await server.user("bob")
        let sqlite = try #require(server.storage as? SQLiteStorage)
        let hash = try await sqlite.pool.read { db in
            try String.fetchOne(db, sql: "SELECT hash FROM tokens WHERE user_id = (SELECT id FROM users WHERE name = 'alice')")
        }
        try await sqlite.pool.write { db in try db.execute(sql: damage.sql) }

        let refused = try await alice.send(.GET, alice.databasePath + "/zones")
        #expect(refused.status == 500, "\(refused.text)")
        #expect(refused.error?.code == .internalError)
        let served = try await bob.send(.GET, bob.databasePath + "/zones")
        #expect(served.status == 200, "\(served.text)")

        let error = await #expect(throws: UndecodableValueError.self) { try await sqlite.token(hash: try #require(hash)) }
        #expect(error?.table == damage.table)
        #expect(error?.column == damage.column)
        #expect(error?.description.contains("\(damage.table).\(damage.column)") == true)
    }
}
