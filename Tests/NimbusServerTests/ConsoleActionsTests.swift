import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

@Suite("Console: administrator actions, confirmation and the audit log", .stopsServers)
struct ConsoleActionsTests {
    @Test("revoking a token asks first, then signs the device out and is audited")
    func revokeToken() async throws {
        let server = try await TestServer.start(.sqlite)
        var admin = try await ConsoleBrowser.signedIn(server, token: try await server.administrator())
        let alice = try await server.user("alice")
        let console = try #require(server.storage as? any ConsoleStorage)
        let aliceID = try #require(try await server.storage.user(named: "alice")?.id)
        let tokenID = try #require(try await console.consoleTokens(userID: aliceID).first?.id)
        let page = try await admin.get("/console/users/\(aliceID)")
        #expect(page.text.contains("aria-label=\"Revoke token \(tokenID) of alice-device\""))
        let asked = try await admin.post("/console/tokens/\(tokenID)/revoke", form: [])
        #expect(asked.status == 200)
        #expect(asked.text.contains("Revoke token #\(tokenID)"))
        #expect(asked.text.contains(#"name="confirm" value="yes""#))
        #expect(try await alice.send(.GET, alice.databasePath + "/zones").status == 200)
        let done = try await admin.post("/console/tokens/\(tokenID)/revoke", form: [("confirm", "yes")])
        #expect(done.status == 303)
        #expect(done.headers["Location"].first == "/console/users/\(aliceID)")
        #expect(try await alice.send(.GET, alice.databasePath + "/zones").status == 401)
        let audit = try await admin.get("/console/audit")
        #expect(audit.text.contains("<td>revoke token</td><td>alice/alice-device #\(tokenID)</td>"))
    }

    @Test("changing a quota asks first, refuses bad numbers without changing anything, and applies")
    func quota() async throws {
        let server = try await TestServer.start(.sqlite)
        var admin = try await ConsoleBrowser.signedIn(server, token: try await server.administrator())
        let alice = try await server.user("alice")
        try await alice.createZone("notes")
        let aliceID = try #require(try await server.storage.user(named: "alice")?.id)
        _ = try await admin.get("/console/users/\(aliceID)")
        for bad in ["-1", "lots", "99999999999999999999"] {
            let reply = try await admin.post("/console/users/\(aliceID)/quota", form: [("quota", bad), ("confirm", "yes")])
            #expect(reply.status == 400, "\(bad)")
        }
        #expect(try await server.storage.user(named: "alice")?.quotaBytes == nil)
        let asked = try await admin.post("/console/users/\(aliceID)/quota", form: [("quota", "10")])
        #expect(asked.text.contains("Set alice"))
        #expect(try await server.storage.user(named: "alice")?.quotaBytes == nil)
        #expect(try await admin.post("/console/users/\(aliceID)/quota", form: [("quota", "10"), ("confirm", "yes")]).status == 303)
        #expect(try await server.storage.user(named: "alice")?.quotaBytes == 10)
        let refused = try await alice.modify("notes", ModifyRecordsRequest(saves: [Make.record("a", ["t": .string("more than ten bytes")])]))
        #expect(refused.text.contains("quotaExceeded"))
        #expect(try await admin.get("/console/audit").text.contains("from default to 10"))
    }

    @Test("disabling a user revokes their tokens and refuses new ones until enabled")
    func disable() async throws {
        let server = try await TestServer.start(.sqlite)
        var admin = try await ConsoleBrowser.signedIn(server, token: try await server.administrator())
        let alice = try await server.user("alice")
        let aliceID = try #require(try await server.storage.user(named: "alice")?.id)
        _ = try await admin.get("/console/users/\(aliceID)")
        #expect(try await admin.post("/console/users/\(aliceID)/disable", form: [("confirm", "yes")]).status == 303)
        #expect(try await alice.send(.GET, alice.databasePath + "/zones").status == 401)
        await #expect(throws: WireError.self) {
            _ = try await AccountAdmin(storage: server.storage).createToken(userName: "alice", device: "new")
        }
        #expect(try await admin.get("/console/users").text.contains("<td>disabled</td>"))
        #expect(try await admin.post("/console/users/\(aliceID)/enable", form: [("confirm", "yes")]).status == 303)
        let token = try await AccountAdmin(storage: server.storage).createToken(userName: "alice", device: "new")
        let again = TestClient(baseURL: server.baseURL, token: token, container: "app")
        #expect(try await again.send(.GET, again.databasePath + "/zones").status == 200)
        // An administrator cannot lock themself out.
        let rootID = try #require(try await server.storage.user(named: "root")?.id)
        #expect(try await admin.post("/console/users/\(rootID)/disable", form: [("confirm", "yes")]).status == 400)
    }

    @Test("deleting a zone asks first, then deletes it and its records")
    func deleteZone() async throws {
        let server = try await TestServer.start(.sqlite)
        var admin = try await ConsoleBrowser.signedIn(server, token: try await server.administrator())
        let alice = try await server.user("alice")
        try await alice.createZone("notes")
        try await alice.save("notes", [Make.record("a", ["t": .string("x")])])
        let aliceID = try #require(try await server.storage.user(named: "alice")?.id)
        let zone = try #require(try await (server.storage as! any ConsoleStorage).consoleZones(ownerID: aliceID).first)
        let asked = try await admin.get("/console/zones/\(zone.rowID)/delete")
        #expect(asked.text.contains("Delete zone “notes”"))
        #expect(try await server.storage.zone(zone.key) != nil)
        let done = try await admin.post("/console/zones/\(zone.rowID)/delete", form: [("confirm", "yes")])
        #expect(done.status == 303)
        #expect(try await server.storage.zone(zone.key) == nil)
        #expect(try await alice.changes("notes").error?.code == .zoneNotFound)
        #expect(try await admin.get("/console/audit").text.contains("delete zone"))
        #expect(try await admin.get("/console/zones/\(zone.rowID)/records").status == 404)
    }
}
