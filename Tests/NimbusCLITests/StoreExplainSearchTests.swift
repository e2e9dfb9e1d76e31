import Foundation
import Testing

/// `nimbus store explain` and `nimbus store search`, on the Posts model drawn in Xcode
/// (its `byRatingBox` R-tree fetch index, its `title` marked for Spotlight).
@Suite("nimbus store explain and search")
struct StoreExplainSearchTests {
    let folder: URL
    let cli: CLIRunner

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        cli = CLIRunner(directory: folder)
    }

    private func createPosts(history: Bool = true) throws {
        let output = try cli.run(["store", "create", "posts.sqlite", "--model",
                                  StoreCommandTests.fixtures.appendingPathComponent("Posts.xcdatamodeld").path] + (history ? ["--history"] : []))
        #expect(output.status == 0, "\(output.stderr)")
    }

    private func insertPost(_ title: String, rating: Int = 3) throws {
        let values = ["createdAt=2024-02-01T00:00:00Z", "identifier=\(UUID().uuidString)", "isDraft=NO", "rating=\(rating)",
                      "score=1", "views=1", "viewsTotal=1", "title=\(title)"]
        let output = try cli.run(["store", "insert", "posts.sqlite", "Post"] + values)
        #expect(output.status == 0, "\(output.stderr)")
    }

    @Test("explain prints the SQL and a query plan that goes through the R-tree")
    func explainRTree() throws {
        try createPosts()
        let output = try cli.run(["store", "explain", "posts.sqlite", "Post", "--predicate", "rating BETWEEN {2, 4}", "--sort", "title"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains(#"t0.Z_PK IN (SELECT id FROM "Z_POST_BYRATINGBOX" WHERE "ZRATING_MAX" >= ? AND "ZRATING_MIN" <= ?)"#))
        #expect(output.stdout.contains("arguments: 2.0, 4.0"))
        #expect(output.stdout.contains("VIRTUAL TABLE INDEX"))
        let json = try #require(try cli.json(["store", "explain", "posts.sqlite", "Post", "--predicate", "rating >= 4", "--json"]) as? [String: Any])
        #expect((json["sql"] as? String)?.contains("Z_POST_BYRATINGBOX") == true)
        #expect((json["queryPlan"] as? [String])?.contains { $0.contains("Z_POST_BYRATINGBOX VIRTUAL TABLE INDEX") } == true)
        #expect(json["arguments"] as? [String] == ["4.0", "4"])
    }

    @Test("explain reports a bad predicate or entity as an error")
    func explainErrors() throws {
        try createPosts()
        let bad = try cli.run(["store", "explain", "posts.sqlite", "Post", "--predicate", "rating >"])
        #expect(bad.status != 0)
        #expect(!bad.stderr.isEmpty)
        let unknown = try cli.run(["store", "explain", "posts.sqlite", "Nope"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("Nope"))
    }

    @Test("NIMBUS_SQL_DEBUG=4 shows the R-tree in the fetch's query plan")
    func sqlDebugShowsRTree() throws {
        try createPosts()
        try insertPost("Rated", rating: 5)
        let output = try cli.run(["store", "fetch", "posts.sqlite", "Post", "--predicate", "rating >= 4 AND rating <= 5"],
                                 environment: ["NIMBUS_SQL_DEBUG": "4"])
        let all = output.stderr + output.stdout
        #expect(all.contains("Z_POST_BYRATINGBOX VIRTUAL TABLE INDEX"), "\(all)")
    }

    @Test("search indexes pending history first and finds titles ignoring case and diacritics, as text and JSON")
    func search() throws {
        try createPosts()
        try insertPost("Café au lait")
        try insertPost("Harbour lights")
        let text = try cli.run(["store", "search", "posts.sqlite", "CAFE*"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Post p1"))
        #expect(text.stdout.contains("[Café] au lait"))
        try insertPost("Another cafe")
        let json = try #require(try cli.json(["store", "search", "posts.sqlite", "cafe", "--json"]) as? [[String: Any]])
        #expect(json.count == 2)
        #expect(json.allSatisfy { ($0["objectID"] as? String)?.hasPrefix("x-coredata://") == true && $0["entity"] as? String == "Post" })
        let none = try cli.run(["store", "search", "posts.sqlite", "zebra"])
        #expect(none.stdout.contains("no matches"))
    }

    @Test("a malformed search or a store without history is a clear error")
    func searchErrors() throws {
        try createPosts()
        let malformed = try cli.run(["store", "search", "posts.sqlite", "\"unclosed"])
        #expect(malformed.status != 0)
        #expect(malformed.stderr.contains("never closed"), "\(malformed.stderr)")
        try FileManager.default.removeItem(at: folder.appendingPathComponent("posts.sqlite"))
        try createPosts(history: false)
        let noHistory = try cli.run(["store", "search", "posts.sqlite", "cafe"])
        #expect(noHistory.status != 0)
        #expect(noHistory.stderr.contains("persistent history"), "\(noHistory.stderr)")
    }
}
