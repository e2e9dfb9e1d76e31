import Foundation
@testable import NimbusServer
import NimbusWire
import Testing

/// Checks `openapi.yaml` against the running server: the same routes, and every status the
/// server answers is one the document declares for that operation.
@Suite("OpenAPI document")
struct OpenAPITests {
    /// Operations of the document: "METHOD /path" → declared status codes.
    static func documentedOperations() throws -> [String: Set<Int>] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let text = try String(contentsOf: root.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        var operations: [String: Set<Int>] = [:]
        var path: String?
        var operation: String?
        var inPaths = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line == "paths:" { inPaths = true; continue }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                path = String(line.dropFirst(2).dropLast())
                operation = nil
            } else if let path, line.hasPrefix("    "), !line.hasPrefix("     "),
                let method = ["get", "put", "post", "delete"].first(where: { line == "    \($0):" })
            {
                operation = "\(method.uppercased()) \(path)"
                operations[operation!] = []
            } else if let operation, line.hasPrefix("        '"), let code = Int(line.dropFirst(9).prefix(3)) {
                operations[operation]?.insert(code)
            }
        }
        return operations
    }

    @Test("the document describes exactly the routes the server registers")
    func sameRoutes() throws {
        let documented = Set(try Self.documentedOperations().keys)
        let registered = Set(ServerRoutes.all.map { "\($0.method) \($0.path)" })
        #expect(documented == registered)
        #expect(documented.count == 16)
    }

    @Test("every operation answers only with statuses the document declares, and is routed")
    func statusesMatch() async throws {
        let operations = try Self.documentedOperations()
        let server = try await TestServer.start(.sqlite) { $0.rateLimitBurst = 10_000 }
        defer { Task { await server.stop() } }
        let alice = try await server.user("alice")
        var anonymous = alice
        anonymous.token = nil
        var seen: [String: Set<Int>] = [:]
        func check(_ method: String, _ template: String, _ reply: Reply) {
            let key = "\(method) \(template)"
            seen[key, default: []].insert(reply.status)
            #expect(operations[key]?.contains(reply.status) == true, "\(key) answered \(reply.status), not declared: \(reply.text)")
            #expect(!(reply.error?.message.hasPrefix("No route") ?? false), "\(key) is not routed")
        }
        let db = "/v1/containers/{container}/databases/{database}"
        check("GET", "/health", try await alice.send(.GET, "/health"))
        check("GET", "/metrics", try await alice.send(.GET, "/metrics"))
        check("GET", db + "/zones", try await alice.send(.GET, alice.databasePath + "/zones"))
        check("GET", db + "/zones", try await anonymous.send(.GET, alice.databasePath + "/zones"))
        check("PUT", db + "/zones/{zone}", try await alice.send(.PUT, alice.zonePath("z")))
        check("PUT", db + "/zones/{zone}", try await alice.send(.PUT, alice.zonePath("z")))
        check("PUT", db + "/zones/{zone}", try await alice.send(.PUT, alice.zonePath("z") + "?owner=bob"))
        check("POST", db + "/zones/{zone}/records/modify", try await alice.modify("z", ModifyRecordsRequest(saves: [Make.record("r", ["t": .string("x")])])))
        check("POST", db + "/zones/{zone}/records/modify", try await alice.modify("z", ModifyRecordsRequest(saves: [Make.record("r", ["t": .string("y")])])))
        check("POST", db + "/zones/{zone}/records/modify", try await alice.send(.POST, alice.zonePath("z") + "/records/modify", body: Data("nope".utf8)))
        check("POST", db + "/zones/{zone}/records/modify", try await alice.modify("none", ModifyRecordsRequest(saves: [Make.record("r", [:])])))
        check("POST", db + "/zones/{zone}/records/lookup", try await alice.send(.POST, alice.zonePath("z") + "/records/lookup", json: LookupRecordsRequest(recordNames: ["r"])))
        check("POST", db + "/zones/{zone}/changes", try await alice.changes("z"))
        check("POST", db + "/zones/{zone}/changes", try await alice.changes("z", since: ChangeToken(rawValue: "bad")))
        check("POST", db + "/changes", try await alice.send(.POST, alice.databasePath + "/changes", json: FetchDatabaseChangesRequest()))
        let bob = try await server.user("bob")
        let share = db + "/zones/{zone}/share"
        check("GET", share, try await alice.getShare("z"))
        check("PUT", share, try await alice.share("z", ["bob": .readOnly]))
        check("PUT", share, try await alice.share("z", ["bob": .readWrite]))
        check("PUT", share, try await alice.share("z", ["ghost": .readWrite]))
        check("PUT", share, try await alice.share("none", ["bob": .readWrite]))
        check("PUT", share, try await alice.send(.PUT, alice.zonePath("z") + "/share", body: Data("nope".utf8)))
        check("PUT", share, try await bob.shared(owner: "alice").share("z", ["bob": .readWrite]))
        check("GET", share, try await alice.getShare("z"))
        check("GET", share, try await bob.shared(owner: "alice").getShare("z"))
        check("GET", share, try await bob.shared().getShare("z"))
        check("GET", share, try await alice.getShare("none"))
        check("POST", db + "/zones/{zone}/records/modify", try await bob.shared(owner: "alice").modify("z", ModifyRecordsRequest(saves: [Make.record("s", [:])])))
        check("DELETE", share, try await bob.shared(owner: "alice").send(.DELETE, bob.shared(owner: "alice").zonePath("z") + "/share"))
        check("DELETE", share, try await alice.send(.DELETE, alice.zonePath("z") + "/share"))
        check("DELETE", share, try await alice.send(.DELETE, alice.zonePath("z") + "/share"))
        check("DELETE", db + "/zones/{zone}", try await alice.send(.DELETE, alice.zonePath("z")))
        check("DELETE", db + "/zones/{zone}", try await alice.send(.DELETE, alice.zonePath("z")))
        let upload = try await alice.send(.PUT, "/v1/containers/app/assets", body: Data("bytes".utf8))
        check("PUT", "/v1/containers/{container}/assets", upload)
        let checksum = try upload.decode(AssetUploadResponse.self).asset.checksum
        check("PUT", "/v1/containers/{container}/assets/{checksum}", try await alice.send(.PUT, "/v1/containers/app/assets/\(checksum)", body: Data("bytes".utf8)))
        check("GET", "/v1/containers/{container}/assets/{checksum}", try await alice.send(.GET, "/v1/containers/app/assets/\(checksum)"))
        check("GET", "/v1/containers/{container}/assets/{checksum}", try await alice.send(.GET, "/v1/containers/app/assets/\(checksum)", headers: [("Range", "bytes=0-1")]))
        let push = PushListener.connect(url: "ws://127.0.0.1:\(server.port)/v1/containers/app/databases/private/push", token: alice.token!)
        #expect(await push.next(within: .seconds(10))?.kind == .hello)
        push.close()
        seen["GET \(db)/push", default: []].insert(101)
        #expect(Set(seen.keys) == Set(operations.keys))
    }
}
