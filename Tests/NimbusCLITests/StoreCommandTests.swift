import Foundation
import GRDB
import Testing

/// `nimbus store …` run as a user runs it, on a model written in Xcode's format.
@Suite("nimbus store")
struct StoreCommandTests {
    let folder: URL
    let cli: CLIRunner
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("NimbusTests/Fixtures")

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        cli = CLIRunner(directory: folder)
    }

    private func createPosts() throws {
        let output = try cli.run(["store", "create", "posts.sqlite", "--model", Self.fixtures.appendingPathComponent("Posts.xcdatamodeld").path])
        #expect(output.status == 0, "\(output.stderr)")
    }

    private func insertPost(_ values: [String]) throws -> String {
        let base = ["createdAt=2024-02-01T00:00:00Z", "identifier=\(UUID().uuidString)", "isDraft=NO", "rating=3", "score=1", "views=1", "viewsTotal=1"]
        let output = try cli.run(["store", "insert", "posts.sqlite", "Post"] + base + values)
        #expect(output.status == 0, "\(output.stderr)")
        return output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("create, insert and fetch as JSON: attributes as keys, relationships as URIs, objectID")
    func roundTrip() throws {
        try createPosts()
        let ada = try cli.run(["store", "insert", "posts.sqlite", "Person", "name=Ada", "birthday=1990-01-01T00:00:00Z", "email=ada@example.com"])
        #expect(ada.status == 0, "\(ada.stderr)")
        let adaURI = ada.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(adaURI.hasPrefix("x-coredata://") && adaURI.hasSuffix("/Person/p1"))
        _ = try insertPost(["title=Hello", "views=10", "price=9.5", "author=\(adaURI)"])
        _ = try insertPost(["title=Other", "views=2"])

        let posts = try #require(try cli.json(["store", "fetch", "posts.sqlite", "Post", "--predicate", "author.name == 'Ada'", "--json"]) as? [[String: Any]])
        #expect(posts.count == 1)
        let post = try #require(posts.first)
        #expect(post["title"] as? String == "Hello")
        #expect(post["views"] as? Int == 10)
        #expect(post["price"] as? Double == 9.5)
        #expect(post["isDraft"] as? Bool == false)
        #expect(post["createdAt"] as? String == "2024-02-01T00:00:00.000Z")
        #expect(post["author"] as? [String] == [adaURI])
        #expect(post["tags"] as? [String] == [])
        #expect(post["body"] is NSNull)
        #expect((post["objectID"] as? String)?.hasSuffix("/Post/p1") == true)

        let people = try #require(try cli.json(["store", "fetch", "posts.sqlite", "Person", "--json"]) as? [[String: Any]])
        #expect((people.first?["posts"] as? [String])?.count == 1)
    }

    @Test("predicates from the Core Data documentation, sorting, limits and counts")
    func queries() throws {
        try createPosts()
        for (title, views) in [("Alpha", 5), ("beta", 15), ("Gamma", 25), ("delta", 35)] {
            _ = try insertPost(["title=\(title)", "views=\(views)"])
        }
        func titles(_ extra: [String]) throws -> [String] {
            let rows = try #require(try cli.json(["store", "fetch", "posts.sqlite", "Post", "--json"] + extra) as? [[String: Any]])
            return rows.compactMap { $0["title"] as? String }
        }
        #expect(try titles(["--predicate", "views BETWEEN {10, 30}", "--sort", "views"]) == ["beta", "Gamma"])
        #expect(try titles(["--predicate", "title BEGINSWITH[c] 'a' OR title ENDSWITH 'ta'", "--sort", "title"]) == ["Alpha", "beta", "delta"])
        #expect(try titles(["--predicate", "title IN {'Alpha', 'delta'}", "--sort", "views:desc"]) == ["delta", "Alpha"])
        #expect(try titles(["--predicate", "title LIKE[c] '*amm*'"]) == ["Gamma"])
        #expect(try titles(["--predicate", "NOT (views > 10)"]) == ["Alpha"])
        #expect(try titles(["--sort", "views:desc", "--limit", "2", "--offset", "1"]) == ["Gamma", "beta"])
        let count = try cli.run(["store", "fetch", "posts.sqlite", "Post", "--predicate", "views > 10", "--count"])
        #expect(count.stdout == "3\n")
        let deleted = try cli.run(["store", "delete", "posts.sqlite", "Post", "--predicate", "views < 20"])
        #expect(deleted.stdout == "deleted 2\n")
        #expect(try titles(["--sort", "title"]) == ["Gamma", "delta"])
    }

    @Test("a JSON model works like an Xcode model; inspect shows counts, UUID and journal mode")
    func inspect() throws {
        let created = try cli.run(["store", "create", "json.sqlite", "--model", Self.fixtures.appendingPathComponent("Posts.json").path, "--json"])
        #expect(created.status == 0, "\(created.stderr)")
        let info = try #require(try cli.json(["store", "inspect", "json.sqlite", "--json"]) as? [String: Any])
        #expect(info["journalMode"] as? String == "wal")
        #expect((info["storeUUID"] as? String).flatMap(UUID.init(uuidString:)) != nil)
        #expect((info["modelVersionHash"] as? String)?.count == 64)
        let entities = try #require(info["entities"] as? [[String: Any]])
        #expect(entities.map { $0["name"] as? String } == ["Attachment", "ImageAttachment", "Person", "Post", "Tag"])
        #expect(entities.allSatisfy { ($0["count"] as? Int) == 0 })
        let text = try cli.run(["store", "inspect", "json.sqlite"])
        #expect(text.stdout.contains("journal mode wal"))
    }

    @Test("bad input exits non-zero with one line on stderr and changes nothing", arguments: [
        (["store", "insert", "posts.sqlite", "Post", "views=abc"], "is not an integer"),
        (["store", "insert", "posts.sqlite", "Post", "nope=1"], "has no property 'nope'"),
        (["store", "insert", "posts.sqlite", "Post", "novalue"], "expected key=value"),
        (["store", "insert", "posts.sqlite", "Nope"], "no entity named Nope"),
        (["store", "insert", "posts.sqlite", "Post", "isDraft=maybe"], "a boolean"),
        (["store", "insert", "posts.sqlite", "Post", "createdAt=yesterday"], "ISO 8601"),
        (["store", "insert", "posts.sqlite", "Post", "title=t", "rating=9"], "validation failure"),
        (["store", "insert", "posts.sqlite", "Person", "email=nobody"], "Person.email"),
        (["store", "fetch", "posts.sqlite", "Post", "--predicate", "views >"], "column"),
        (["store", "fetch", "posts.sqlite", "Post", "--predicate", "nope == 1"], "nope"),
        (["store", "fetch", "posts.sqlite", "Post", "--predicate", "views == 'x'"], "views"),
        (["store", "fetch", "posts.sqlite", "Post", "--sort", "views:sideways"], "asc or desc"),
        (["store", "fetch", "missing.sqlite", "Post"], "no store"),
    ] as [([String], String)])
    func badInput(arguments: [String], message: String) throws {
        try createPosts()
        let store = folder.appendingPathComponent("posts.sqlite").path
        let before = try Self.contents(of: store)
        let output = try cli.run(arguments)
        #expect(output.status != 0 && output.status < 128)
        #expect(output.stderr.contains(message), "\(output.stderr)")
        #expect(output.stderr.split(separator: "\n").count == 1)
        // Bad input changes nothing: every row of every table (keys, metadata too) as before.
        #expect(try Self.contents(of: store) == before)
        let count = try cli.run(["store", "fetch", "posts.sqlite", "Post", "--count"])
        #expect(count.stdout == "0\n")
    }

    /// Every table's rows, in key order, as text (the file's bytes change with checkpoints).
    static func contents(of path: String) throws -> [String] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            var lines: [String] = []
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
                lines.append("table \(table)")
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table.quotedDatabaseIdentifier) ORDER BY 1") {
                    lines.append(row.description)
                }
            }
            return lines
        }
    }

    @Test("a crafted store whose model cache holds SQL in its names is refused by fetch and inspect, and runs none of it",
          arguments: [["store", "fetch", "posts.sqlite", "Post"], ["store", "inspect", "posts.sqlite"],
                      ["store", "fetch", "posts.sqlite", "Person", "--count"]])
    func craftedModelCache(arguments: [String]) throws {
        try createPosts()
        _ = try insertPost(["title=kept"])
        let store = folder.appendingPathComponent("posts.sqlite").path
        let queue = try DatabaseQueue(path: store)
        try queue.write { db in
            let data = try #require(try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE"))
            let text = try #require(String(data: data, encoding: .utf8))
            #expect(text.contains("\"Post\""))
            let crafted = text.replacingOccurrences(of: "\"Post\"", with: #""Post\" t0; DELETE FROM ZPOST; --""#)
            try db.execute(sql: "UPDATE Z_MODELCACHE SET Z_CONTENT = ?", arguments: [Data(crafted.utf8)])
        }
        try queue.close()
        let before = try Self.contents(of: store)
        let output = try cli.run(arguments)
        #expect(output.status != 0 && output.status < 128, "\(output.stdout)")
        #expect(output.stderr.contains("not allowed"), "\(output.stderr)")
        #expect(try Self.contents(of: store) == before)
        #expect(before.contains { $0.contains("kept") })
    }

    @Test("a file that is not a store is refused and left alone")
    func notAStore() throws {
        let path = folder.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: path)
        let output = try cli.run(["store", "inspect", "notes.txt"])
        #expect(output.status == 64)
        #expect(output.stderr.contains("not a SQLite database"))
        #expect(try Data(contentsOf: path) == Data("hello".utf8))
    }

    @Test("NIMBUS_SQL_DEBUG prints the SQL sent; level 4 adds query plans")
    func sqlDebug() throws {
        try createPosts()
        let level1 = try cli.run(["store", "fetch", "posts.sqlite", "Post", "--predicate", "views > 3"], environment: ["NIMBUS_SQL_DEBUG": "1"])
        #expect(level1.stderr.contains("SELECT t0.Z_PK") || level1.stdout.contains("SELECT t0.Z_PK"))
        let level4 = try cli.run(["store", "fetch", "posts.sqlite", "Post", "--predicate", "views > 3"], environment: ["NIMBUS_SQL_DEBUG": "4"])
        let all = level4.stderr + level4.stdout
        #expect(all.contains("plan:"))
        #expect(all.contains("ms)"))
    }
}
