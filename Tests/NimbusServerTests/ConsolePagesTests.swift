import AsyncHTTPClient
import Foundation
import NIOCore
@testable import NimbusServer
import NimbusWire
import Testing

@Suite("Console: pages, escaping and the record browser", .stopsServers)
struct ConsolePagesTests {
    static let hostile = #"<script>alert("x")</script> & 'quoted' "double""#
    /// Names cannot hold `/`: a key and a record name that are hostile all the same.
    static let hostileName = #"<img src=x onerror="alert('k')">"#

    @Test("hostile record contents are shown escaped on every page that shows them")
    func escaping() async throws {
        let server = try await TestServer.start(.sqlite)
        var admin = try await ConsoleBrowser.signedIn(server, token: try await server.administrator())
        let alice = try await server.user("alice")
        try await alice.createZone("notes")
        try await alice.save("notes", [
            Make.record("evil", type: "Post", ["title": .string(Self.hostile), Self.hostileName: .int64(1), "link": .reference(RecordReference(recordName: Self.hostileName))]),
            Make.record(Self.hostileName, type: Self.hostileName, ["title": .string("named badly")]),
        ])
        let zone = try #require(try await (server.storage as! any ConsoleStorage).consoleZones(ownerID: 2).first)
        let pages = [
            "/console/zones/\(zone.rowID)/records",
            "/console/zones/\(zone.rowID)/record?name=evil",
            "/console/zones/\(zone.rowID)/schema",
            "/console/zones/\(zone.rowID)/records?field=\(ConsoleBrowser.encode("title"))&value=\(ConsoleBrowser.encode(Self.hostile))",
        ]
        for path in pages {
            let reply = try await admin.get(path)
            #expect(reply.status == 200, "\(path): \(reply.text)")
            #expect(!reply.text.contains("<script>alert"), "\(path)")
            #expect(!reply.text.contains("<img src=x"), "\(path)")
            #expect(!reply.text.contains(#"'quoted'"#), "\(path)")
            let escaped = path.hasSuffix("/schema") ? "&lt;img src=x onerror=&quot;alert(&#39;k&#39;)&quot;&gt;" : "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"
            #expect(reply.text.contains(escaped), "\(path)")
        }
        // A record whose name and type are hostile opens through its escaped link.
        let named = try await admin.get("/console/zones/\(zone.rowID)/record?name=\(ConsoleBrowser.encode(Self.hostileName))")
        #expect(named.status == 200)
        #expect(!named.text.contains("<img src=x"))
        // The filter found the record by its hostile value, and echoes the value escaped in the form.
        let filtered = try await admin.get(pages[3])
        #expect(filtered.text.contains(">evil</a>"))
        #expect(filtered.text.contains(#"value="&lt;script&gt;"#))
    }

    @Test("the record browser filters by type and field, sorts, and pages by keyset without gaps or repeats")
    func browser() async throws {
        let server = try await TestServer.start(.sqlite)
        var admin = try await ConsoleBrowser.signedIn(server, token: try await server.administrator())
        let alice = try await server.user("alice")
        try await alice.createZone("notes")
        var records: [Record] = []
        for index in 0..<130 {
            let type = index % 2 == 0 ? "Post" : "Tag"
            records.append(Make.record(String(format: "r%03d", index), type: type, ["n": .int64(Int64(index % 5)), "label": .string("L\(index % 3)")], time: Int64(1000 + (130 - index))))
        }
        try await alice.save("notes", records)
        let zone = try #require(try await (server.storage as! any ConsoleStorage).consoleZones(ownerID: 2).first)
        let base = "/console/zones/\(zone.rowID)/records"

        func names(_ html: String) -> [String] {
            html.components(separatedBy: "record?name=").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        }
        func nextLink(_ html: String) -> String? {
            guard let range = html.range(of: #"<a href="([^"]+)" rel="next">"#, options: .regularExpression) else { return nil }
            return String(html[range].dropFirst(#"<a href=""#.count).prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
        }
        func walk(_ start: String) async throws -> [String] {
            var seen: [String] = []
            var path: String? = start
            var pages = 0
            while let current = path, pages < 10 {
                let reply = try await admin.get(current)
                #expect(reply.status == 200, "\(current): \(reply.text)")
                seen += names(reply.text)
                path = nextLink(reply.text)
                pages += 1
            }
            return seen
        }
        let all = try await walk(base)
        #expect(all == records.map(\.recordName))
        let descending = try await walk(base + "?sort=-name")
        #expect(descending == records.map(\.recordName).reversed())
        // Modified: r129 was saved with the earliest stamp time… but all in one batch share
        // the server's modification time, so ties are broken by name.
        let byModified = try await walk(base + "?sort=modified")
        #expect(Set(byModified) == Set(all) && byModified.count == all.count)
        let tags = try await walk(base + "?type=Tag")
        #expect(tags == records.filter { $0.recordType == "Tag" }.map(\.recordName))
        let field = try await walk(base + "?type=Post&field=n&value=3")
        let threes: [String] = records.filter { (record: Record) -> Bool in
            record.recordType == "Post" && record.fields["n"]?.value == FieldValue.int64(3)
        }.map(\.recordName)
        #expect(field == threes)
        let bad = try await admin.get(base + "?sort=sideways")
        #expect(bad.status == 400)
        #expect(bad.text.contains("Sort by one of"))
    }

    @Test("on 100,000 records every page is an index range from the cursor, never a sort of the zone")
    func largeZone() async throws {
        let server = try await TestServer.start(.sqlite)
        let storage = try #require(server.storage as? SQLiteStorage)
        let alice = try await server.user("alice")
        try await alice.createZone("big")
        let zone = try #require(try await storage.consoleZones(ownerID: 1).first)
        for batch in 0..<100 {
            var saves: [Record] = []
            for index in 0..<1000 {
                let name = String(format: "r%06d", batch * 1000 + index)
                let type = index % 10 == 0 ? "Rare" : "Common"
                saves.append(Make.record(name, type: type, ["n": FieldValue.int64(Int64(index))]))
            }
            _ = try await storage.modifyRecords(
                zone.key, ModifyRecordsRequest(saves: saves),
                context: ModifyContext(device: "d", now: Int64(1_700_000_000_000 + batch), quotaUserID: nil, defaultQuotaBytes: 0))
        }
        var query = RecordQuery(zoneRowID: zone.rowID)
        for order in RecordQuery.Order.allCases {
            query.order = order
            query.after = RecordCursor(name: "r050000", modified: 1_700_000_000_050)
            let plan = try await storage.recordPagePlan(query).joined(separator: "\n")
            #expect(!plan.contains("TEMP B-TREE"), "\(order): \(plan)")
            #expect(plan.contains("SEARCH records USING"), "\(order): \(plan)")
            let page = try await storage.recordPage(query)
            #expect(page.records.count == 50)
            #expect(page.next != nil)
        }
        query.order = .name
        query.after = RecordCursor(name: "r099990", modified: 0)
        let last = try await storage.recordPage(query)
        #expect(last.records.map(\.recordName) == (99991...99999).map { String(format: "r%06d", $0) })
        #expect(last.next == nil)
        var browser = try await ConsoleBrowser.signedIn(server, token: try await server.administrator())
        let page = try await browser.get("/console/zones/\(zone.rowID)/records?type=Rare&after=0:r090000")
        #expect(page.status == 200)
        #expect(page.text.contains(">r090010</a>"))
    }

    @Test("the overview, users, shares, requests and schema pages show what the server holds")
    func pages() async throws {
        let server = try await TestServer.start(.sqlite)
        var admin = try await ConsoleBrowser.signedIn(server, token: try await server.administrator())
        let alice = try await server.user("alice")
        _ = try await server.user("bob")
        try await alice.createZone("notes")
        try await alice.save("notes", [Make.record("a", type: "Post", ["title": .string("hi"), "when": .date(Date(timeIntervalSince1970: 0))])])
        _ = try await alice.shareOK("notes", ["bob": .readWrite])
        _ = try await alice.fetchChanges("notes")
        let overview = try await admin.get("/console")
        #expect(overview.text.contains(#"data-count="records">1<"#))
        #expect(overview.text.contains("<svg role=\"img\""))
        let users = try await admin.get("/console/users")
        #expect(users.text.contains(">alice</a>") && users.text.contains(">bob</a>"))
        let aliceID = try #require(try await server.storage.user(named: "alice")?.id)
        let alicePage = try await admin.get("/console/users/\(aliceID)")
        #expect(alicePage.text.contains("alice-device"))
        #expect(alicePage.text.contains(">notes</a>"))
        let shares = try await admin.get("/console/shares")
        #expect(shares.text.contains("bob: readWrite, invited"))
        let requests = try await admin.get("/console/requests?user=alice")
        #expect(requests.text.contains("/records/modify"))
        #expect(requests.text.contains("alice/alice-device"))
        let failures = try await admin.get("/console/requests?status=5xx")
        #expect(failures.text.contains("No requests match."))
        let zone = try #require(try await (server.storage as! any ConsoleStorage).consoleZones(ownerID: aliceID).first)
        let schema = try await admin.get("/console/zones/\(zone.rowID)/schema")
        #expect(schema.text.contains("<th scope=\"row\">title</th><td>string</td>"))
        #expect(schema.text.contains("<th scope=\"row\">when</th><td>date</td>"))
    }

    @Test("the live-update stream announces a change with fresh counts")
    func liveUpdate() async throws {
        let server = try await TestServer.start(.sqlite)
        let admin = try await ConsoleBrowser.signedIn(server, token: try await server.administrator())
        let alice = try await server.user("alice")
        try await alice.createZone("notes")
        var request = HTTPClientRequest(url: server.baseURL + "/console/events")
        request.headers.add(name: "Cookie", value: "\(ConsoleRoutes.sessionCookie)=\(admin.cookies[ConsoleRoutes.sessionCookie]!)")
        let response = try await ConsoleBrowser.client.execute(request, timeout: .seconds(30))
        #expect(response.headers["Content-Type"].first == "text/event-stream")
        // The stream never ends by itself: read until the change arrives, or give up after 20 s
        // (a bound on a failure, not a measured duration).
        let text = try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                var text = ""
                var saved = false
                for try await chunk in response.body {
                    text += String(buffer: chunk)
                    if text.contains("event: hello"), !saved {
                        saved = true
                        try await alice.save("notes", [Make.record("a", ["t": .string("x")])])
                    }
                    if text.contains("event: change") && text.contains(#""records":1"#) { break }
                }
                return text
            }
            group.addTask {
                try await Task.sleep(for: .seconds(20))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first ?? "no change event within 20 s"
        }
        #expect(text.contains(#""zone":"app\/notes""#) || text.contains(#""zone":"app/notes""#))
        #expect(text.contains(#""records":1"#))
    }
}
