import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

@Suite("Console: sign-in, sessions and CSRF", .stopsServers)
struct ConsoleSignInTests {
    @Test("an administrator's token signs in with an HttpOnly, SameSite=Strict cookie; Secure only under TLS")
    func signIn() async throws {
        let server = try await TestServer.start(.sqlite)
        let token = try await server.administrator()
        var browser = ConsoleBrowser(baseURL: server.baseURL)
        let reply = try await browser.signIn(token: token)
        #expect(reply.status == 303)
        #expect(reply.headers["Location"].first == "/console")
        let cookie = try #require(ConsoleBrowser.setCookie(ConsoleRoutes.sessionCookie, in: reply))
        #expect(cookie.contains("HttpOnly"))
        #expect(cookie.contains("SameSite=Strict"))
        #expect(cookie.contains("Path=/console"))
        #expect(!cookie.contains("Secure"))
        let overview = try await browser.get("/console")
        #expect(overview.status == 200)
        #expect(overview.text.contains("<h1>Overview</h1>"))
        #expect(overview.headers["Content-Security-Policy"].first?.contains("script-src 'self'") == true)

        var behindTLS = ConsoleBrowser(baseURL: server.baseURL)
        let secure = try await behindTLS.signIn(token: token, headers: [("X-Forwarded-Proto", "https")])
        #expect(ConsoleBrowser.setCookie(ConsoleRoutes.sessionCookie, in: secure)?.contains("Secure") == true)
    }

    @Test("`nimbus users add NAME --admin` makes an administrator whose token signs in")
    func commandLine() async throws {
        let directory = NSTemporaryDirectory() + "nimbus-console-cli-\(UUID().uuidString)"
        #expect(try ServerProcess.run(["users", "add", "root", "--admin", "--data-dir", directory]).hasPrefix("added administrator root"))
        #expect(try ServerProcess.run(["users", "add", "alice", "--data-dir", directory]).hasPrefix("added user alice"))
        let token = try ServerProcess.run(["tokens", "create", "--user", "root", "--device", "console", "--data-dir", directory])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let aliceToken = try ServerProcess.run(["tokens", "create", "--user", "alice", "--device", "phone", "--data-dir", directory])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try await TestServer.start(.sqlite, dataDirectory: directory)
        _ = try await ConsoleBrowser.signedIn(server, token: token)
        var alice = ConsoleBrowser(baseURL: server.baseURL)
        #expect(try await alice.signIn(token: aliceToken).status == 403)
    }

    @Test("tokens of other users, forged and revoked tokens never open the console")
    func othersRefused() async throws {
        let server = try await TestServer.start(.sqlite)
        let adminToken = try await server.administrator()
        let alice = try await server.user("alice")
        let aliceToken = try #require(alice.token)
        let root = try #require(try await server.storage.user(named: "root"))
        let revokedToken = try await AccountAdmin(storage: server.storage).createToken(userName: "root", device: "old")
        _ = try await server.storage.revokeTokens(userID: root.id, device: "old")
        for token in [aliceToken, "nmb_forged", revokedToken, ""] {
            var browser = ConsoleBrowser(baseURL: server.baseURL)
            let reply = try await browser.signIn(token: token)
            #expect(reply.status == 403, "\(token)")
            #expect(browser.cookies[ConsoleRoutes.sessionCookie] == nil)
            #expect(reply.text.contains("not valid, or not an administrator"))
            // A bearer header does not open it either.
            let page = try await browser.get("/console/users", headers: [("Authorization", "Bearer \(aliceToken)")])
            #expect(page.status == 303)
            #expect(page.headers["Location"].first == "/console/login")
        }
        _ = adminToken
    }

    @Test("every console page needs the session: GETs go to the sign-in page, POSTs are refused")
    func everyRouteChecked() async throws {
        let server = try await TestServer.start(.sqlite)
        let token = try await server.administrator()
        let alice = try await server.user("alice")
        try await alice.createZone("notes")
        let zone = try #require(try await (server.storage as! any ConsoleStorage).consoleZones(ownerID: 2).first)
        let tokenID = try #require(try await (server.storage as! any ConsoleStorage).consoleTokens(userID: 2).first?.id)
        let gets = [
            "/console", "/console/events", "/console/users", "/console/users/2", "/console/zones",
            "/console/zones/\(zone.rowID)/records", "/console/zones/\(zone.rowID)/record?name=x",
            "/console/zones/\(zone.rowID)/schema", "/console/zones/\(zone.rowID)/delete",
            "/console/zones/\(zone.rowID)/assets/\(String(repeating: "a", count: 64))",
            "/console/shares", "/console/requests", "/console/audit",
        ]
        let posts = [
            "/console/users/2/quota", "/console/users/2/disable", "/console/users/2/enable",
            "/console/tokens/\(tokenID)/revoke", "/console/zones/\(zone.rowID)/delete", "/console/logout",
        ]
        var stranger = ConsoleBrowser(baseURL: server.baseURL)
        for path in gets {
            let reply = try await stranger.get(path)
            #expect(reply.status == 303, "\(path)")
            #expect(reply.headers["Location"].first == "/console/login", "\(path)")
        }
        for path in posts {
            let reply = try await stranger.post(path, form: [("confirm", "yes"), ("quota", "1")], csrf: String(repeating: "0", count: 64))
            #expect(reply.status == 403, "\(path)")
        }
        // Nothing changed: alice's token still works and her zone is there.
        #expect(try await alice.send(.GET, alice.databasePath + "/zones").status == 200)
        #expect(try await server.storage.zone(zone.key) != nil)
        // And every page opens for the administrator (the stream is checked elsewhere).
        var admin = try await ConsoleBrowser.signedIn(server, token: token)
        for path in gets where path != "/console/events" && !path.contains("/assets/") && !path.contains("record?") {
            #expect(try await admin.get(path).status == 200, "\(path)")
        }
    }

    @Test("a form without the session's CSRF token changes nothing")
    func csrf() async throws {
        let server = try await TestServer.start(.sqlite)
        var admin = try await ConsoleBrowser.signedIn(server, token: try await server.administrator())
        let alice = try await server.user("alice")
        let tokenID = try #require(try await (server.storage as! any ConsoleStorage).consoleTokens(userID: 2).first?.id)
        for csrf in ["", String(repeating: "0", count: 64)] {
            let reply = try await admin.post("/console/tokens/\(tokenID)/revoke", form: [("confirm", "yes")], csrf: csrf)
            #expect(reply.status == 403)
            #expect(reply.text.contains("CSRF"))
        }
        #expect(try await alice.send(.GET, alice.databasePath + "/zones").status == 200)
        // The sign-in form has its own token, bound to a cookie.
        var fresh = ConsoleBrowser(baseURL: server.baseURL)
        let forged = try await fresh.post("/console/login", form: [("token", "x")], csrf: String(repeating: "1", count: 64))
        #expect(forged.status == 403)
        #expect(forged.text.contains("form expired"))
    }

    @Test("signing out ends the session; disabling an administrator ends theirs")
    func signOut() async throws {
        let server = try await TestServer.start(.sqlite)
        var root = try await ConsoleBrowser.signedIn(server, token: try await server.administrator("root"))
        var other = try await ConsoleBrowser.signedIn(server, token: try await server.administrator("other"))
        let session = try #require(root.cookies[ConsoleRoutes.sessionCookie])
        let out = try await root.post("/console/logout", form: [])
        #expect(out.status == 303)
        #expect(root.cookies[ConsoleRoutes.sessionCookie] == nil)
        var replay = ConsoleBrowser(baseURL: server.baseURL)
        replay.cookies[ConsoleRoutes.sessionCookie] = session
        #expect(try await replay.get("/console").status == 303)

        root = try await ConsoleBrowser.signedIn(server, token: try await AccountAdmin(storage: server.storage).createToken(userName: "root", device: "again"))
        let otherID = try #require(try await server.storage.user(named: "other")?.id)
        _ = try await root.get("/console/users/\(otherID)")
        #expect(try await root.post("/console/users/\(otherID)/disable", form: [("confirm", "yes")]).status == 303)
        #expect(try await other.get("/console").status == 303)
    }

    @Test("`users add --admin` is refused on a backend without the console, and nothing is added",
          .enabled(if: PostgresHarness.enabled))
    func adminOnPostgres() async throws {
        let server = try await TestServer.start(.postgres)
        await #expect(throws: WireError.self) {
            _ = try await AccountAdmin(storage: server.storage).addUser(name: "root", administrator: true)
        }
        #expect(try await server.storage.user(named: "root") == nil)
    }
}
