import Foundation
import Nimbus
import NimbusTesting
import Testing

@Suite("Sharing through the CLI: device share|accept|participants|shares|unshare|leave", .serialized)
struct SharingCLITests {
    /// Runs nimbus and returns its output, failing the test on a non-zero exit.
    @discardableResult
    static func nimbus(_ arguments: String...) throws -> String {
        let result = try SyncServer.run(arguments)
        try SyncServer.check(result)
        return result.output
    }

    static func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    static func titles(_ device: String) throws -> [String] {
        let objects = try #require(try json(nimbus("store", "fetch", device, "Item", "--json")) as? [[String: Any]])
        return objects.compactMap { $0["title"] as? String }.sorted()
    }

    @Test("nimbus demo --sharing plays the sharing story and exits 0")
    func demo() throws {
        let result = try SyncServer.run(["demo", "--sharing"])
        #expect(result.status == 0, "\(result.output)\n\(result.error)")
        #expect(result.output.contains("alan: renaming the list is refused"))
        #expect(result.output.contains("alan's copy: gone"))
    }

    @Test("Ada shares a list with Grace (read-write, two devices) and Alan (read-only); Alan's edit is refused; removed, his copy goes")
    func threeUsers() async throws {
        let server = try await SyncServer(devices: 1, user: "ada", otherUsers: ["grace", "alan"])
        defer { server.stop() }
        let modelURL = server.folder.url.appendingPathComponent("Lists.json")
        try JSONEncoder().encode(try SharingModel.model()).write(to: modelURL)
        func device(_ name: String, _ token: String) throws -> String {
            let path = server.folder.url.appendingPathComponent(name).path
            try Self.nimbus("device", "init", path, "--server", server.url.absoluteString, "--token", token, "--model", modelURL.path, "--container", "lists")
            return path
        }
        let ada = try device("ada", server.tokens[0])
        let grace = try device("grace", server.otherTokens["grace"]!)
        let graceLaptop = try device("grace-laptop", server.otherTokens["grace"]!)
        let alan = try device("alan", server.otherTokens["alan"]!)

        try Self.nimbus("store", "insert", ada, "List", "name=Groceries")
        try Self.nimbus("store", "insert", ada, "Item", "title=milk", "list=List[name=Groceries]")
        try Self.nimbus("store", "insert", ada, "Note", "text=not shared")
        try Self.nimbus("device", "sync", ada)
        let shared = try #require(try Self.json(Self.nimbus("device", "share", ada, "List", "--predicate", "name == 'Groceries'",
                                                           "--with", "grace:read-write", "--with", "alan:read-only", "--json")) as? [String: Any])
        let id = try #require(shared["id"] as? String)
        let url = try #require(shared["url"] as? String)
        #expect(url.hasPrefix(server.url.absoluteString))

        // Nothing before accepting; the list after.
        try Self.nimbus("device", "sync", grace)
        #expect(try Self.titles(grace) == [])
        for participant in [grace, alan] { try Self.nimbus("device", "accept", participant, url) }
        #expect(try Self.titles(grace) == ["milk"])
        #expect(try Self.titles(alan) == ["milk"])
        let notes = try #require(try Self.json(Self.nimbus("store", "fetch", grace, "Note", "--json")) as? [Any])
        #expect(notes.isEmpty)

        // Grace adds an item (it joins the shared list's store by itself); everyone sees it.
        try Self.nimbus("store", "insert", grace, "Item", "title=bread", "list=List[name=Groceries]")
        try Self.nimbus("device", "sync", grace)
        try Self.nimbus("device", "sync", ada)
        try Self.nimbus("device", "sync", graceLaptop)
        #expect(try Self.titles(ada) == ["bread", "milk"])
        #expect(try Self.titles(graceLaptop) == ["bread", "milk"])

        // Alan may read, not write: refused with a clear error, nothing changes.
        let refused = try SyncServer.run(["store", "update", alan, "List", "--predicate", "name == 'Groceries'", "name=Alan's"])
        #expect(refused.status != 0)
        #expect(refused.error.contains("read-only"))
        try Self.nimbus("device", "sync", alan)
        #expect(try Self.titles(alan) == ["bread", "milk"])

        // The owner sees states; removes Alan; his copy goes, Grace's stays.
        let listing = try #require(try Self.json(Self.nimbus("device", "shares", ada, "--json")) as? [[String: Any]])
        let states = (listing.first { $0["id"] as? String == id }?["participants"] as? [[String: Any]] ?? [])
            .reduce(into: [String: String]()) { $0[$1["user"] as? String ?? ""] = $1["state"] as? String }
        #expect(states == ["grace": "accepted", "alan": "accepted"])
        try Self.nimbus("device", "participants", ada, id, "--remove", "alan")
        try Self.nimbus("device", "sync", alan)
        #expect(try Self.titles(alan) == [])
        try Self.nimbus("device", "sync", grace)
        #expect(try Self.titles(grace) == ["bread", "milk"])
        let graceView = try #require(try Self.json(Self.nimbus("device", "shares", grace, "--json")) as? [[String: Any]])
        #expect(graceView.first?["role"] as? String == "participant")
        #expect(graceView.first?["permission"] as? String == "read-write")

        // Grace leaves: gone from both her devices. Ada unshares: she keeps the list.
        try Self.nimbus("device", "leave", grace, id)
        #expect(try Self.titles(grace) == [])
        try Self.nimbus("device", "sync", graceLaptop)
        #expect(try Self.titles(graceLaptop) == [])
        try Self.nimbus("device", "unshare", ada, id)
        try Self.nimbus("device", "sync", ada)
        #expect(try Self.titles(ada) == ["bread", "milk"])
        // Bad input: a clear error, non-zero exit.
        let badPermission = try SyncServer.run(["device", "participants", ada, id, "--add", "grace:admin"])
        #expect(badPermission.status != 0 && badPermission.error.contains("permission"))
        let unknownShare = try SyncServer.run(["device", "leave", alan, "no-such-share"])
        #expect(unknownShare.status != 0)
    }
}
